/// Gives the memory malloc holds freed back to the kernel (glibc's
/// malloc_trim(3)). After a one-off load that took several times what it
/// keeps (a city's crossings file), glibc keeps the freed blocks for the
/// process's life, and a daemon's resident size would carry them.
public enum FreedMemory {
    /// Returns whether any memory went back.
    @discardableResult
    public static func release() -> Bool { mallocTrim(0) == 1 }
}

/// Swift's Glibc module leaves out <malloc.h>; the symbol is glibc's.
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32
