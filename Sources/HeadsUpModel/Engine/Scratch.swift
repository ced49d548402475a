import HeadsUpKernels

/// Working memory that one thread's forward passes reuse.
///
/// A batch of 16 windows needs ~0.7 MB of recurrent scratch per layer. Fresh
/// allocations that size come straight from mmap, so every chunk paid a page
/// fault per 4 KB and throughput swung by 2.5× with the allocator's mood;
/// reused buffers are faulted in once. A single window's buffers are small,
/// but allocating, zeroing and freeing them on every call cost the seed
/// model 1.5–2 µs a window in `headsup model bench`.
///
/// Not thread-safe: one call uses it at a time. Handing it from one call to
/// the next (a model keeps a spare between calls) is why it is Sendable.
package final class Scratch: @unchecked Sendable {
    private var buffers: [AlignedFloats] = []
    private var next = 0

    package init() {}

    /// Makes every buffer available again; call between forward passes.
    package func reset() { next = 0 }

    /// A cache-line-aligned buffer whose first `count` floats are zero,
    /// valid until the next ``reset()``. It may be longer than asked for.
    package func zeros(_ count: Int) -> AlignedFloats {
        buffer(count, zeroFrom: 0)
    }

    /// A buffer of at least `count` floats of which only `zeroFrom..<count`
    /// are zero: for outputs that a kernel overwrites anyway (the slack
    /// after them stays zero).
    package func buffer(_ count: Int, zeroFrom: Int) -> AlignedFloats {
        defer { next += 1 }
        if next < buffers.count, buffers[next].count >= count {
            buffers[next].pointer.advanced(by: zeroFrom).update(repeating: 0, count: count - zeroFrom)
            return buffers[next]
        }
        let buffer = AlignedFloats(zeros: count)
        if next < buffers.count { buffers[next] = buffer } else { buffers.append(buffer) }
        return buffer
    }
}
