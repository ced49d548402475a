/// Working memory that one thread's forward passes reuse.
///
/// A batch of 16 windows needs ~0.7 MB of recurrent scratch per layer. Fresh
/// allocations that size come straight from mmap, so every chunk paid a page
/// fault per 4 KB and throughput swung by 2.5× with the allocator's mood;
/// reused buffers are faulted in once.
///
/// Not thread-safe: each thread (each `predict` call) has its own.
public final class Scratch {
    private var buffers: [AlignedFloats] = []
    private var next = 0

    public init() {}

    /// Makes every buffer available again; call between forward passes.
    public func reset() { next = 0 }

    /// A cache-line-aligned buffer whose first `count` floats are zero,
    /// valid until the next ``reset()``. It may be longer than asked for.
    public func zeros(_ count: Int) -> AlignedFloats {
        defer { next += 1 }
        if next < buffers.count, buffers[next].count >= count {
            buffers[next].pointer.update(repeating: 0, count: count)
            return buffers[next]
        }
        let buffer = AlignedFloats(zeros: count)
        if next < buffers.count { buffers[next] = buffer } else { buffers.append(buffer) }
        return buffer
    }
}
