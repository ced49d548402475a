import CCPUFeatures
import HeadsUpKernels
import HeadsUpKernelsAVX2
import HeadsUpKernelsAVX512
import HeadsUpKernelsAVX512Zen
import HeadsUpKernelsBaseline
import HeadsUpKernelsNEON

/// Which kernel table a model runs with: the best level this CPU supports,
/// or a lower one that `HEADSUP_KERNELS` asks for (to compare levels, or to
/// rule a level out when chasing a problem).
extension KernelTable {
    /// The environment variable that forces a kernel level.
    package static let environmentVariable = "HEADSUP_KERNELS"

    /// The best level this CPU supports.
    package static var best: KernelTable { compiled(for: supportedLevels[0]) }

    /// The levels this CPU and OS can run, best first.
    package static var supportedLevels: [KernelLevel] {
        #if arch(x86_64)
            switch headsup_cpu_kernel_level() {
            case 3: [.avx512Zen, .avx512, .avx2, .baseline]
            case 2: [.avx512, .avx2, .baseline]
            case 1: [.avx2, .baseline]
            default: [.baseline]
            }
        #elseif arch(arm64)
            // Every AArch64 core has NEON with FMA.
            [.neon, .baseline]
        #else
            [.baseline]
        #endif
    }

    /// The table compiled for `level`. The caller makes sure the CPU has it
    /// (``supportedLevels``): another level's code stops at its first
    /// unsupported instruction, and another architecture's is not compiled in.
    package static func compiled(for level: KernelLevel) -> KernelTable {
        switch level {
        case .baseline: return baselineKernels()
        #if arch(x86_64)
            case .avx512Zen: return avx512ZenKernels()
            case .avx512: return avx512Kernels()
            case .avx2: return avx2Kernels()
        #elseif arch(arm64)
            case .neon: return neonKernels()
        #endif
        default: preconditionFailure("the \(level.rawValue) kernels are not compiled for this architecture")
        }
    }

    /// The best supported level, or the one `environment[HEADSUP_KERNELS]` names.
    package static func forThisMachine(environment: [String: String]) throws(KernelSelectionError) -> KernelTable {
        let supported = supportedLevels
        guard let requested = environment[environmentVariable], !requested.isEmpty else { return compiled(for: supported[0]) }
        guard let level = KernelLevel(name: requested) else {
            throw .unknownLevel(requested, supported: supported)
        }
        guard supported.contains(level) else { throw .unsupportedLevel(level, supported: supported) }
        return compiled(for: level)
    }
}

/// A kernel level that `HEADSUP_KERNELS` asks for but cannot be had.
package enum KernelSelectionError: Error, Equatable, CustomStringConvertible {
    case unknownLevel(String, supported: [KernelLevel])
    case unsupportedLevel(KernelLevel, supported: [KernelLevel])

    package var description: String {
        switch self {
        case .unknownLevel(let name, let supported):
            "\(KernelTable.environmentVariable)=\(name) names no kernel level; use one of \(Self.names(supported)) (this CPU), or unset it"
        case .unsupportedLevel(let level, let supported):
            "\(KernelTable.environmentVariable)=\(level.rawValue): this CPU cannot run that level; it runs \(Self.names(supported))"
        }
    }

    private static func names(_ levels: [KernelLevel]) -> String {
        levels.map(\.rawValue).joined(separator: ", ")
    }
}
