import Foundation

/// The CPU model and kernel release, printed beside every speed figure so
/// figures from different machines are never mixed.
enum CPUDescription {
    static func current() -> String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            info.split(separator: "\n")
            .first { $0.hasPrefix("model name") || $0.hasPrefix("Model") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        // The architecture too: an aarch64 /proc/cpuinfo has no model name, and under qemu-user it is the host's.
        let machine = withUnsafeBytes(of: names.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(model) (\(machine)), Linux \(release)"
    }
}
