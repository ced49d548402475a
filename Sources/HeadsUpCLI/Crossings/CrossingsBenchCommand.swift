import ArgumentParser
import Foundation
import HeadsUpCrossings
import HeadsUpSystem

/// `headsup crossings bench FILE`: what the crossings cost the daemon, per
/// fix and in memory, as the file grows. A benchmark, not a test: it prints
/// figures with the CPU and kernel they were measured on.
struct CrossingsBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time the crossing monitor per fix for growing parts of a crossings file, and the memory the file takes.",
        discussion: """
            For each size N, the N crossings nearest the file's centre are indexed, and a walk of \
            fixes (1 s apart, 1.4 m/s, 5 m accuracy) wanders among the 100 nearest, so every size \
            sees the same crossings around each fix: a flat time per fix means the lookup does not \
            grow with the file. tools/bench/crossings.py makes a city-sized file and runs this.
            """)

    @Argument(help: "A crossings file (headsup crossings import).")
    var file: String

    @Option(help: "Comma-separated numbers of crossings to index.")
    var sizes = "100,1000,10000,100000"

    @Option(help: "Fixes per timing round.")
    var fixes = 100_000

    @Option(help: "Timing rounds per size (the median is shown).")
    var rounds = 5

    func run() throws {
        let counts = sizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }), fixes > 0, rounds > 0 else {
            throw CommandError("--sizes takes positive numbers (100,1000), --fixes and --rounds positive counts")
        }
        let before = ResidentMemory.current()
        let started = SystemMonotonicClock().now()
        let crossingsFile: CrossingsFile
        do { crossingsFile = try CrossingsFile.read(path: file) } catch { throw CommandError("\(error)") }
        let all = crossingsFile.crossings
        guard all.count >= 100 else { throw CommandError("\(file): \(all.count) crossings; the bench needs at least 100") }
        let fullGrid = CrossingGrid(all)
        let loadSeconds = SystemMonotonicClock().now() - started
        let held = ResidentMemory.current() - before
        print("cpu\t\(CPUDescription.current())")
        print("file\t\(file): \(all.count) crossings, \(fileSize()) bytes; map data \(CrossingsFile.credit)")
        print(String(format: "load\t%.3f s to read and index; resident memory +%.1f MB (%d cells)", loadSeconds, held / 1e6, fullGrid.occupiedCells))
        let center = GeoPoint(
            latitude: all.map(\.position.latitude).sorted()[all.count / 2], longitude: all.map(\.position.longitude).sorted()[all.count / 2])
        let byDistance = all.sorted { Geodesy.distance(center, $0.position) < Geodesy.distance(center, $1.position) }
        let innerRadius = Geodesy.distance(center, byDistance[99].position)
        let walk = Self.walk(around: center, radius: innerRadius, count: fixes)
        print("walk\t\(fixes) fixes within \(Int(innerRadius)) m of the centre (the 100 nearest crossings)")
        print("size\tns per fix (median of \(rounds))\tentries per round")
        for count in counts where count <= all.count {
            let grid = CrossingGrid(Array(byDistance.prefix(count)))
            var times: [Double] = []
            var entries = 0
            for _ in 0..<rounds {
                var monitor = CrossingMonitor(grid: grid)
                let clock = SystemMonotonicClock()
                let start = clock.now()
                for fix in walk { _ = monitor.observe(fix, at: fix.time) }
                times.append((clock.now() - start) / Double(walk.count))
                entries = monitor.counters.entries
            }
            print(String(format: "%d\t%.0f\t%d", count, times.sorted()[times.count / 2] * 1e9, entries))
        }
    }

    private func fileSize() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0
    }

    /// A walk at 1.4 m/s that turns now and then and stays within `radius` of `center`.
    static func walk(around center: GeoPoint, radius: Double, count: Int) -> [LocationFix] {
        var generator = SplitMix64(seed: 39)
        var (east, north, heading) = (0.0, 0.0, 0.0)
        return (0..<count).map { index in
            if generator.next() % 8 == 0 { heading = Double(generator.next() % 360) }
            var (nextEast, nextNorth) = (east + 1.4 * sin(heading * .pi / 180), north + 1.4 * cos(heading * .pi / 180))
            if (nextEast * nextEast + nextNorth * nextNorth).squareRoot() > radius {
                heading = (heading + 180).truncatingRemainder(dividingBy: 360)
                (nextEast, nextNorth) = (east, north)
            }
            (east, north) = (nextEast, nextNorth)
            return LocationFix(
                time: Double(index), position: Geodesy.moved(center, east: east, north: north), accuracy: 5, speed: 1.4, heading: heading)
        }
    }
}
