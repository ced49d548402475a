import Foundation
import HeadsUpKernels
import HeadsUpModel

/// The kernel level a command's model runs on: the best this CPU has, or
/// the one `HEADSUP_KERNELS` names.
enum KernelChoice {
    static func fromEnvironment() throws -> KernelTable {
        try KernelTable.forThisMachine(environment: ProcessInfo.processInfo.environment)
    }
}
