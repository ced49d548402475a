"""Training HeadsUp's models in Keras, and the bridge to its Swift engine.

    python3 -m tools.training.train        # the shipped models and their cards
    python3 -m tools.training.personalize  # a personal model from your own walks

`engine` is the one way these tools run the Swift engine (`headsup model
predict`, `selftest`, `inspect`); tools/training/README.md has the rest.
"""
