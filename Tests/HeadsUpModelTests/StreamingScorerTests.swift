import HeadsUpModel
import HeadsUpTestSupport
import Testing

@Suite("Streaming scorer")
struct StreamingScorerTests {
    func fixtureModel(_ name: String) throws -> KerasModel {
        try KerasModelLoader.load(path: TestEnvironment.path("Tests/Fixtures/keras/\(name)/model.h5"))
    }

    @Test(arguments: ["seed_tfkeras_h5", "seed_k231_h5", "seed_keras3_h5"])
    func stepByStepEqualsTheWholeWindow(name: String) throws {
        let model = try fixtureModel(name)
        let scorer = try StreamingScorer(model: model)
        #expect(scorer.stepWidth == 9)
        for input in try KerasFixture.rows("\(name)/inputs.csv").prefix(4) {
            scorer.reset()
            // The seed reshapes a flat 450-vector with Reshape((50, 9)): step t is values 9t…9t+8.
            for t in 0..<50 { scorer.step(Array(input[(9 * t)..<(9 * t + 9)])) }
            let streamed = scorer.output()
            let whole = model.predict(input)
            #expect(scorer.stepsSeen == 50)
            #expect(abs(streamed[0] - whole[0]) <= 1e-6, "\(streamed) vs \(whole)")
        }
    }

    @Test func everyStreamableFixtureStreamsToKerasOutputs() throws {
        var streamed: [String] = []
        for fixture in try KerasFixture.all() {
            let model = try KerasModelLoader.load(
                path: "\(KerasFixture.root)/\(fixture.model)", architecture: fixture.config.map { "\(KerasFixture.root)/\($0)" })
            guard let scorer = try? StreamingScorer(model: model) else { continue }
            streamed.append(fixture.name)
            let width = scorer.stepWidth
            for (input, keras) in zip(try KerasFixture.rows(fixture.inputs), try KerasFixture.rows(fixture.outputs)) {
                scorer.reset()
                for t in 0..<(input.count / width) { scorer.step(Array(input[(width * t)..<(width * (t + 1))])) }
                for (ours, theirs) in zip(scorer.output(), keras) { #expect(agrees(ours, theirs), "\(fixture.name)") }
            }
        }
        #expect(streamed.count >= 4, "\(streamed)")
    }

    @Test func backwardsLayersAreRefusedWithTheReason() throws {
        do {
            _ = try StreamingScorer(model: try fixtureModel("rnn_k231_h5"))
            Issue.record("a go_backwards layer cannot stream")
        } catch {
            #expect("\(error)".contains("backwards"))
        }
    }

    @Test func resetStartsANewSequence() throws {
        let model = try fixtureModel("seed_tfkeras_h5")
        let scorer = try StreamingScorer(model: model)
        let input = try KerasFixture.rows("seed_tfkeras_h5/inputs.csv")[0]
        for t in 0..<50 { scorer.step(Array(input[(9 * t)..<(9 * t + 9)])) }
        let first = scorer.output()
        for t in 0..<20 { scorer.step(Array(input[(9 * t)..<(9 * t + 9)])) }
        #expect(scorer.output() != first)
        scorer.reset()
        for t in 0..<50 { scorer.step(Array(input[(9 * t)..<(9 * t + 9)])) }
        #expect(scorer.output() == first)
    }
}
