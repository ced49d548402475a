import CHDF5
import Glibc
import HeadsUpSystem

/// libhdf5's functions, loaded by the first file opened (see CHDF5/shim.h
/// for why HeadsUp does not link the library).
struct HDF5Library: @unchecked Sendable {
    /// Every function field is set: `headsup_hdf5_bind` fails otherwise.
    let api: headsup_hdf5

    /// The files to try: `HEADSUP_LIBHDF5` alone when it is set (a user's
    /// own build of the right version), else the names distributions give
    /// the library (CHDF5/shim.h's list).
    static func candidates(environment: [String: String]) -> [String] {
        if let chosen = environment["HEADSUP_LIBHDF5"], !chosen.isEmpty { return [chosen] }
        return Array((0...).lazy.map { headsup_hdf5_name($0) }.prefix { $0 != nil }.map { String(cString: $0!) })
    }

    /// Loading is tried once per process and its outcome kept: the table
    /// is immutable, and a missing library stays missing.
    private static let loaded: Result<HDF5Library, DynamicLibraryError> = {
        let environment = getenv("HEADSUP_LIBHDF5").map { ["HEADSUP_LIBHDF5": String(cString: $0)] } ?? [:]
        do throws(DynamicLibraryError) {
            let (_, api) = try DynamicLibrary.load(firstOf: candidates(environment: environment)) {
                (library: DynamicLibrary) -> Result<headsup_hdf5, DynamicLibrary.Refusal> in
                var api = headsup_hdf5()
                var problem = [CChar](repeating: 0, count: 256)
                guard headsup_hdf5_bind(library.handle, &api, &problem, problem.count) == nil else {
                    return .failure(DynamicLibrary.Refusal(String(decoding: problem.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
                }
                return .success(api)
            }
            // HeadsUp reports errors itself: no error stack printed by the library.
            _ = api.H5Eset_auto2!(headsup_H5E_DEFAULT, nil, nil)
            return .success(HDF5Library(api: api))
        } catch {
            return .failure(error)
        }
    }()

    /// The library, or an error naming `file` (the file that needed it).
    static func load(for file: String) throws(HDF5Error) -> HDF5Library {
        switch loaded {
        case .success(let library): return library
        case .failure(let failure): throw HDF5Error(file: file, object: "", problem: .libraryMissing(failure.description))
        }
    }
}
