import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Distances over a few hundred metres, where the Earth is flat enough: an
/// equirectangular projection around a reference latitude. Its error at
/// 1 km is far below a GNSS fix's, and it needs one cosine per fix.
public enum Geodesy {
    /// The mean Earth radius, metres (IUGG).
    public static let earthRadius = 6_371_008.8
    /// Metres per degree of latitude.
    public static let metresPerDegree = earthRadius * Double.pi / 180

    /// Metres per degree of longitude at `latitude`.
    public static func metresPerDegreeLongitude(at latitude: Double) -> Double {
        metresPerDegree * cos(latitude * Double.pi / 180)
    }

    /// East and north offset of `point` from `origin`, metres.
    public static func offset(of point: GeoPoint, from origin: GeoPoint) -> (east: Double, north: Double) {
        var deltaLongitude = point.longitude - origin.longitude
        if deltaLongitude > 180 { deltaLongitude -= 360 } else if deltaLongitude < -180 { deltaLongitude += 360 }
        let meanLatitude = (point.latitude + origin.latitude) / 2
        return (deltaLongitude * metresPerDegreeLongitude(at: meanLatitude), (point.latitude - origin.latitude) * metresPerDegree)
    }

    /// Metres between two nearby points.
    public static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let (east, north) = offset(of: b, from: a)
        return (east * east + north * north).squareRoot()
    }

    /// The point `east` and `north` metres from `origin`.
    public static func moved(_ origin: GeoPoint, east: Double, north: Double) -> GeoPoint {
        GeoPoint(
            latitude: origin.latitude + north / metresPerDegree,
            longitude: origin.longitude + east / metresPerDegreeLongitude(at: origin.latitude))
    }
}

extension Geodesy {
    /// Degrees clockwise from north of an east/north offset, 0…360.
    public static func bearing(east: Double, north: Double) -> Double {
        let degrees = atan2(east, north) * 180 / Double.pi
        return degrees < 0 ? degrees + 360 : degrees
    }
}
