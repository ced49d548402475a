import Testing

@testable import HeadsUpCrossings

@Suite("Crossing grid")
struct CrossingGridTests {
    let origin = GeoPoint(latitude: 43.7384, longitude: 7.4246)

    /// Crossings every `spacing` metres on a square, ids from 1, at OSM's precision (1e-7°, as files hold them).
    func square(side: Int, spacing: Double, around center: GeoPoint) -> [Crossing] {
        (0..<side * side).map { index in
            let east = Double(index % side - side / 2) * spacing
            let north = Double(index / side - side / 2) * spacing
            let point = Geodesy.moved(center, east: east, north: north)
            return Crossing(
                id: Int64(index + 1), kind: CrossingKind.allCases[index % CrossingKind.allCases.count],
                position: GeoPoint(latitude: (point.latitude * 1e7).rounded() / 1e7, longitude: (point.longitude * 1e7).rounded() / 1e7))
        }
    }

    @Test func findsWhatABruteForceSearchFinds() {
        let crossings = square(side: 40, spacing: 17, around: origin)
        let grid = CrossingGrid(crossings, cellSize: 50)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let point = Geodesy.moved(
                origin, east: Double.random(in: -400...400, using: &generator), north: Double.random(in: -400...400, using: &generator))
            let radius = Double.random(in: 0...180, using: &generator)
            let expected = crossings.filter { Geodesy.distance(point, $0.position) <= radius }.map(\.id).sorted()
            #expect(grid.near(point, radius: radius).map(\.crossing.id).sorted() == expected)
        }
    }

    @Test func nearestFirstAndFilteredByKind() {
        let grid = CrossingGrid(square(side: 5, spacing: 10, around: origin))
        let found = grid.near(origin, radius: 15)
        #expect(found.first?.distance ?? 1 < 0.01)
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.distance <= $1.distance })
        let signals = grid.near(origin, radius: 100, kinds: [.signals])
        #expect(!signals.isEmpty && signals.allSatisfy { $0.crossing.kind == .signals })
    }

    @Test func wideSearchesAndHostileInput() {
        let grid = CrossingGrid(square(side: 3, spacing: 1000, around: origin))
        #expect(grid.near(origin, radius: 1e12).count == 9)
        #expect(grid.near(origin, radius: .infinity).isEmpty)
        #expect(grid.near(origin, radius: .nan).isEmpty)
        #expect(grid.near(GeoPoint(latitude: .nan, longitude: 0), radius: 10).isEmpty)
        #expect(grid.near(GeoPoint(latitude: 89.9999, longitude: 179.9), radius: 5000).isEmpty)
        #expect(CrossingGrid([]).near(origin, radius: 100).isEmpty)
        let polar = CrossingGrid([Crossing(id: 1, kind: .marked, position: GeoPoint(latitude: 90, longitude: 180))], cellSize: .nan)
        #expect(polar.near(GeoPoint(latitude: 90, longitude: 180), radius: 1).count == 1)
    }

    /// The cells looked at depend on the radius, not on the file: a city
    /// of 10,000 around the fix finds the same neighbours as 9 of them.
    /// What goes in comes out: ids, kinds, positions to 1e-7°, kerbs.
    @Test func crossingsComeBackAsIndexed() throws {
        let kerbs = [GeoPoint(latitude: 43.7341038, longitude: 7.4220794), GeoPoint(latitude: 43.7341842, longitude: 7.4225294)]
        let crossings = [
            Crossing(id: 25_191_715, kind: .signals, position: GeoPoint(latitude: 43.7341664, longitude: 7.4223666), kerbs: kerbs),
            Crossing(id: 7, kind: .railRoad, position: GeoPoint(latitude: -33.5, longitude: -70.6543211)),
        ]
        for crossing in crossings {
            let found = try #require(CrossingGrid(crossings).near(crossing.position, radius: 1).first)
            #expect(found.crossing == crossing)
            #expect(found.distance < 0.01)
        }
        #expect(CrossingGrid(crossings + [Crossing(id: 9, kind: .marked, position: GeoPoint(latitude: .nan, longitude: 0))]).count == 2)
    }

    @Test func lookupSeesOnlyNearbyCells() {
        let small = CrossingGrid(square(side: 3, spacing: 30, around: origin))
        let large = CrossingGrid(square(side: 100, spacing: 30, around: origin))
        #expect(small.near(origin, radius: 45).map(\.distance) == large.near(origin, radius: 45).map(\.distance))
        #expect(large.occupiedCells > 1000)
    }
}
