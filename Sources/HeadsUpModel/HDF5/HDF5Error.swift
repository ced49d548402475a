import CHDF5

/// A failure inside an HDF5 file, with the file and the object path.
public struct HDF5Error: Error, Equatable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        case notHDF5
        case cannotOpen
        case missingObject
        case missingAttribute(String)
        case unreadable(String)
        case unsupportedType(String)
        /// libhdf5 could not be loaded: what was tried and why.
        case libraryMissing(String)
    }

    public var file: String
    public var object: String
    public var problem: Problem

    public var description: String {
        let place = object.isEmpty || object == "/" ? file : "\(file): \(object)"
        switch problem {
        case .notHDF5: return "\(file): not an HDF5 file (is it a Keras .h5/.keras/.weights.h5 file?)"
        case .cannotOpen: return "\(file): cannot be opened as HDF5 (truncated or damaged?)"
        case .missingObject: return "\(place): not found in the file"
        case .missingAttribute(let name): return "\(place): attribute '\(name)' is missing"
        case .unreadable(let what): return "\(place): cannot read \(what) (truncated or damaged file?)"
        case .unsupportedType(let what): return "\(place): unsupported data type (\(what))"
        case .libraryMissing(let why):
            let version = String(cString: headsup_hdf5_built_version())
            return "\(file): reading HDF5 needs libhdf5 \(version).x, the version HeadsUp was built for "
                + "(Debian: apt install \(String(cString: headsup_hdf5_debian_package())); HEADSUP_LIBHDF5=FILE names another "
                + "\(version) library), which could not be loaded (\(why))"
        }
    }
}
