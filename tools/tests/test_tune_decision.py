"""tools/tune_decision.py's rule on made-up sweeps: false episodes per
steady hour and median latency weighed by their targets, then the ties.

    python3 -m unittest discover -s tools/tests -t tools
"""
import unittest

import tune_decision


def row(hop, episodes, median, maximum=None, before=0, missed=0, hours=2.0, tc=0.5, minimum=0.5):
    return {"candidate": {"hop": hop, "timeConstant": tc, "minimumDuration": minimum},
            "steadyFalseEpisodes": episodes, "steadyPocketHours": hours,
            "splices": {"missed": missed, "medianLatency": median, "maximumLatency": maximum or median + 0.5,
                        "falseEpisodes": before, "splices": 100}}


class ChooseTest(unittest.TestCase):
    def test_a_second_of_latency_weighs_as_one_false_episode_per_hour(self):
        calm_but_slow = row(10, 2, 3.0)          # 1 episode/h + 3.0 s = 4.0
        quick_but_noisy = row(25, 4, 0.8)        # 2 episodes/h + 0.8 s = 2.8
        self.assertIs(tune_decision.choose([calm_but_slow, quick_but_noisy]), quick_but_noisy)
        noisier = row(25, 10, 0.8)               # 5 episodes/h + 0.8 s = 5.8
        self.assertIs(tune_decision.choose([calm_but_slow, noisier]), calm_but_slow)

    def test_a_candidate_that_misses_a_splice_is_never_chosen(self):
        perfect_but_missing = row(25, 0, 0.5, missed=1)
        self.assertIs(tune_decision.choose([perfect_but_missing, row(10, 4, 2.0)])["candidate"]["hop"], 10)
        with self.assertRaises(SystemExit):
            tune_decision.choose([perfect_but_missing])

    def test_ties_go_to_fewer_episodes_before_a_joint_then_the_faster_worst_case_then_the_larger_hop(self):
        a = row(10, 2, 1.0, before=3)
        b = row(5, 2, 1.0, before=1, maximum=2.0)
        c = row(25, 2, 1.02, before=1, maximum=2.0)
        d = row(25, 2, 1.0, before=1, maximum=3.0)
        self.assertIs(tune_decision.choose([a, b, c, d]), c)


if __name__ == "__main__":
    unittest.main()
