import HeadsUpKernels
import HeadsUpModel
import Testing

/// Which kernel level a model runs on, and how `HEADSUP_KERNELS` changes it.
@Suite("Kernel selection")
struct KernelSelectionTests {
    @Test func withoutTheVariableTheBestSupportedLevelRuns() throws {
        let supported = KernelTable.supportedLevels
        #expect(supported.last == .baseline)
        #expect(try KernelTable.forThisMachine(environment: [:]).level == supported[0])
        #expect(try KernelTable.forThisMachine(environment: ["HEADSUP_KERNELS": ""]).level == supported[0])
    }

    @Test func theVariableForcesEverySupportedLevel() throws {
        for level in KernelTable.supportedLevels {
            #expect(try KernelTable.forThisMachine(environment: ["HEADSUP_KERNELS": level.rawValue.uppercased()]).level == level)
        }
    }

    @Test func anUnknownNameIsAnErrorThatListsTheChoices() {
        #expect(throws: KernelSelectionError.unknownLevel("sse9", supported: KernelTable.supportedLevels)) {
            try KernelTable.forThisMachine(environment: ["HEADSUP_KERNELS": "sse9"])
        }
        let message = KernelSelectionError.unknownLevel("sse9", supported: [.avx2, .baseline]).description
        #expect(message.contains("HEADSUP_KERNELS=sse9") && message.contains("avx2, baseline"))
    }

    @Test func aLevelThisCPUCannotRunIsRefusedNotRun() throws {
        let unsupported = KernelLevel.allCases.filter { !KernelTable.supportedLevels.contains($0) }
        for level in unsupported {
            #expect(throws: KernelSelectionError.unsupportedLevel(level, supported: KernelTable.supportedLevels)) {
                try KernelTable.forThisMachine(environment: ["HEADSUP_KERNELS": level.rawValue])
            }
        }
        let message = KernelSelectionError.unsupportedLevel(.avx512, supported: [.avx2, .baseline]).description
        #expect(message.contains("cannot run") && message.contains("avx2, baseline"))
    }

    @Test func everyLevelsTableSaysWhichLevelItIs() {
        for level in KernelTable.supportedLevels { #expect(KernelTable.compiled(for: level).level == level) }
    }
}
