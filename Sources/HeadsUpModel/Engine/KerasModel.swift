import Dispatch
import HeadsUpKernels
import Synchronization

/// A Keras model loaded into HeadsUp's engine: a chain of layers with
/// packed weights, run in Float32 without Python.
///
/// Thread-safe: one model can score from several threads at once. A call
/// borrows the model's spare working memory when no other call holds it
/// and makes its own otherwise, so results never depend on the threads.
public final class KerasModel: Sendable {
    public let info: ModelInfo
    package let layers: [any InferenceLayer]
    /// Shape of one input example (without the batch dimension).
    public let inputShape: [Int]
    /// The CPU level of the kernels the fast layers run (nil: the reference engine).
    package let kernelLevel: KernelLevel?
    public let outputShape: [Int]
    /// The layers a forward pass runs: `layers` without the ones that do
    /// nothing at inference (Dropout and its kind), which stay listed for
    /// `inspect` but would cost a call and a tensor copy each.
    private let executed: [any InferenceLayer]
    /// Scratch kept between calls: a live scorer calls `predict` once a
    /// window, and fresh buffers each time would cost it (see ``Scratch``).
    private let spareScratch = Mutex<Scratch?>(Scratch())

    init(info: ModelInfo, layers: [any InferenceLayer], inputShape: [Int], kernels: KernelLevel?) {
        self.info = info
        kernelLevel = kernels
        self.layers = layers
        executed = layers.filter { !($0 is IdentityLayer) }
        self.inputShape = inputShape
        outputShape = layers.last?.outputShape ?? inputShape
    }

    /// Values in one input example / one output.
    public var inputCount: Int { inputShape.reduce(1, *) }
    public var outputCount: Int { outputShape.reduce(1, *) }
    public var parameterCount: Int { layers.map(\.parameterCount).reduce(0, +) }

    /// Scores one example (`inputCount` values in C order).
    public func predict(_ input: [Float]) -> [Float] {
        predict(batch: input, count: 1)
    }

    /// Examples pushed through the layers together: enough rows for the
    /// matrix kernel's 4-row tiles, few enough that a chunk's intermediate
    /// arrays stay in the core's cache.
    public static let chunkSize = 16

    /// Scores `count` examples stored one after another; outputs likewise.
    public func predict(batch input: [Float], count: Int) -> [Float] {
        precondition(input.count == count * inputCount, "expected \(count) × \(inputCount) input values, got \(input.count)")
        let scratch = spareScratch.withLock { $0.take() } ?? Scratch()
        defer {
            scratch.reset()
            spareScratch.withLock { spare in if spare == nil { spare = scratch } }
        }
        guard count > Self.chunkSize else { return forward(input, count: count, scratch: scratch) }
        var output: [Float] = []
        output.reserveCapacity(count * outputCount)
        var first = 0
        while first < count {
            let last = min(count, first + Self.chunkSize)
            scratch.reset()
            output += forward(Array(input[(first * inputCount)..<(last * inputCount)]), count: last - first, scratch: scratch)
            first = last
        }
        return output
    }

    private func forward(_ input: [Float], count: Int, scratch: Scratch) -> [Float] {
        var tensor = Tensor(batch: count, exampleShape: inputShape, values: input)
        // Borrowed in place: copying each layer out of the array would retain
        // and release every weight buffer it holds, on every call.
        executed.withUnsafeBufferPointer { chain in
            for index in chain.indices { tensor = chain[index].forward(tensor, scratch: scratch) }
        }
        return tensor.values
    }

    /// Scores a batch on `threads` threads, each taking a contiguous share.
    public func predict(batch input: [Float], count: Int, threads: Int) -> [Float] {
        let threads = max(1, min(threads, count / 4))
        guard threads > 1 else { return predict(batch: input, count: count) }
        let share = (count + threads - 1) / threads
        let results = UnsafeMutableBufferPointer<[Float]>.allocate(capacity: threads)
        results.initialize(repeating: [])
        defer {
            results.deinitialize()
            results.deallocate()
        }
        nonisolated(unsafe) let shared = results
        DispatchQueue.concurrentPerform(iterations: threads) { part in
            let first = part * share
            let last = min(count, first + share)
            guard first < last else { return }
            shared[part] = predict(batch: Array(input[(first * inputCount)..<(last * inputCount)]), count: last - first)
        }
        return results.flatMap { $0 }
    }
}
