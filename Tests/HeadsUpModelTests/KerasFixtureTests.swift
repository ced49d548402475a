import Foundation
import HeadsUpKernels
import HeadsUpModel
import HeadsUpTestSupport
import Synchronization
import Testing

/// One model written by real Keras, with inputs and Keras's outputs
/// (Tests/Fixtures/keras, made by tools/keras_fixtures/make_fixtures.py).
typealias KerasFixture = KerasFixtureCase

extension KerasFixtureCase: CustomTestStringConvertible {
    public var testDescription: String { name }

    static let root = TestEnvironment.path("Tests/Fixtures/keras")

    static func all() throws -> [KerasFixture] { try all(in: root) }

    static func rows(_ relative: String) throws -> [[Float]] { try rows(relative, in: root) }
}

/// Keras's tolerance: 1e-5 absolute, relative for values larger than 1.
func agrees(_ ours: Float, _ keras: Float) -> Bool { KerasFixtureCase.agrees(ours, keras) }

@Suite("Keras fixtures")
struct KerasFixtureTests {
    @Test func thereAreEnoughFixturesCoveringEveryFormat() throws {
        let fixtures = try KerasFixture.all()
        #expect(fixtures.count >= 20)
        #expect(Set(fixtures.map(\.format)) == ["legacy-h5", "keras-archive", "keras3-weights-h5", "legacy-weights-h5"])
    }

    /// Every fixture on every kernel level this CPU runs (HEADSUP_KERNELS
    /// picks one in production; here each is loaded explicitly).
    @Test(arguments: try KerasFixture.all(), KernelTable.supportedLevels)
    func matchesKeras(_ fixture: KerasFixture, level: KernelLevel) throws {
        let model = try KerasModelLoader.load(
            path: "\(KerasFixture.root)/\(fixture.model)",
            architecture: fixture.config.map { "\(KerasFixture.root)/\($0)" }, kernels: .compiled(for: level))
        #expect(model.kernelLevel == level)
        #expect(model.inputShape == fixture.inputShape)
        #expect(model.outputShape == fixture.outputShape)
        let inputs = try KerasFixture.rows(fixture.inputs)
        let expected = try KerasFixture.rows(fixture.outputs)
        #expect(inputs.count == expected.count && inputs.count >= 6)
        // One at a time (the live path) and as a batch (the evaluation path).
        let batch = model.predict(batch: inputs.flatMap { $0 }, count: inputs.count)
        var worst: Float = 0
        for (index, (input, keras)) in zip(inputs, expected).enumerated() {
            let single = model.predict(input)
            #expect(single.count == keras.count)
            for (position, (ours, theirs)) in zip(single, keras).enumerated() {
                worst = max(worst, abs(ours - theirs) / max(1, abs(theirs)))
                if !agrees(ours, theirs) {
                    Issue.record("\(fixture.name) [\(level.rawValue)] input \(index) output \(position): ours \(ours), Keras \(theirs)")
                }
                let batched = batch[index * keras.count + position]
                if !agrees(batched, theirs) {
                    Issue.record("\(fixture.name) [\(level.rawValue)] batched input \(index) output \(position): ours \(batched), Keras \(theirs)")
                }
            }
        }
        #expect(worst <= 1e-5)
    }

    /// A window's score does not depend on the windows scored beside it:
    /// `live` scores one at a time, `evaluate` in batches, and both must
    /// give the same number to the bit. Every kernel sums each output over
    /// its inputs in one order (MatrixMultiply.swift), whatever tile or
    /// pass a batch size takes; the self-check's batches of 1 to 9 and one
    /// past a chunk cover every tile and leftover path of every level.
    @Test(arguments: KernelTable.supportedLevels)
    func everyFixtureScoresTheSameAloneAndInAnyBatch(level: KernelLevel) throws {
        let outcome = try EngineSelfCheck.kerasFixtures(root: KerasFixture.root, level: level)
        #expect(outcome.cases >= 20)
        #expect(outcome.problems == [])
        #expect(outcome.worstError <= 1e-5)
    }

    /// The levels with a fused multiply-add (AVX-512, AVX2, NEON) differ
    /// only in vector width and tiles, and the summation order is the same
    /// for all of them, so they give the same scores to the bit: an arm64
    /// board replays a walk exactly as an x86 server does.
    @Test(arguments: try KerasFixture.all())
    func everyFusedLevelGivesTheSameScores(_ fixture: KerasFixture) throws {
        let fused = KernelTable.supportedLevels.filter(\.hasFusedMultiplyAdd)
        let inputs = try KerasFixture.rows(fixture.inputs)
        var first: (level: KernelLevel, scores: [Float])?
        for level in fused {
            let model = try KerasModelLoader.load(
                path: "\(KerasFixture.root)/\(fixture.model)",
                architecture: fixture.config.map { "\(KerasFixture.root)/\($0)" }, kernels: .compiled(for: level))
            let scores = model.predict(batch: inputs.flatMap { $0 }, count: inputs.count)
            if let first {
                #expect(scores == first.scores, "\(fixture.name): \(level.rawValue) differs from \(first.level.rawValue)")
            } else {
                first = (level, scores)
            }
        }
    }

    /// The plain reference layers are the oracle the fast ones answer to:
    /// both agree with Keras, and with each other within Keras's tolerance.
    @Test(arguments: try KerasFixture.all())
    func theReferenceLayersAgreeWithKerasAndTheFastPath(_ fixture: KerasFixture) throws {
        let path = "\(KerasFixture.root)/\(fixture.model)"
        let architecture = fixture.config.map { "\(KerasFixture.root)/\($0)" }
        let reference = try KerasModelLoader.load(path: path, architecture: architecture, engine: .reference)
        let fast = try KerasModelLoader.load(path: path, architecture: architecture)
        let inputs = try KerasFixture.rows(fixture.inputs)
        let expected = try KerasFixture.rows(fixture.outputs)
        for (index, (input, keras)) in zip(inputs, expected).enumerated() {
            let plain = reference.predict(input)
            let quick = fast.predict(input)
            for position in keras.indices {
                if !agrees(plain[position], keras[position]) {
                    Issue.record("\(fixture.name) input \(index) output \(position): reference \(plain[position]), Keras \(keras[position])")
                }
                if !agrees(quick[position], plain[position]) {
                    Issue.record("\(fixture.name) input \(index) output \(position): fast \(quick[position]), reference \(plain[position])")
                }
            }
        }
    }

    /// A model keeps spare working memory between calls; calls from several
    /// threads at once must neither share it nor see each other's state.
    @Test(arguments: KernelTable.supportedLevels)
    func concurrentCallsGiveTheSequentialResults(level: KernelLevel) throws {
        let fixture = try #require(try KerasFixture.all().first { $0.name.hasPrefix("seed_tfkeras") })
        let model = try KerasModelLoader.load(
            path: "\(KerasFixture.root)/\(fixture.model)", architecture: nil, kernels: .compiled(for: level))
        let inputs = try KerasFixture.rows(fixture.inputs)
        let sequential = inputs.map { model.predict($0) }
        let results = Mutex<[[[Float]]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { round in
            // Alternate single windows and small batches, so buffers of both sizes change hands.
            let outputs = inputs.indices.map { index in
                round.isMultiple(of: 2)
                    ? model.predict(inputs[index])
                    : Array(model.predict(batch: inputs[index] + inputs[index], count: 2).prefix(sequential[index].count))
            }
            results.withLock { $0.append(outputs) }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 8)
        for outputs in all { #expect(outputs == sequential) }
    }
}
