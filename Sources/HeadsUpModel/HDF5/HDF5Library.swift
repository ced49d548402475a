import CHDF5

/// libhdf5's functions, loaded by the first file opened (see CHDF5/shim.h
/// for why HeadsUp does not link the library).
struct HDF5Library: @unchecked Sendable {
    /// Every function field is set: `headsup_hdf5_load` fails otherwise.
    let api: headsup_hdf5

    /// Loading is tried once per process and its outcome kept: the table
    /// is immutable, and a missing library stays missing.
    private static let loaded: Result<HDF5Library, LoadFailure> = {
        var api = headsup_hdf5()
        var problem = [CChar](repeating: 0, count: 2048)
        guard headsup_hdf5_load(&api, &problem, problem.count) == nil else {
            return .failure(LoadFailure(reason: String(decoding: problem.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        // HeadsUp reports errors itself: no error stack printed by the library.
        _ = api.H5Eset_auto2!(headsup_H5E_DEFAULT, nil, nil)
        return .success(HDF5Library(api: api))
    }()

    private struct LoadFailure: Error { var reason: String }

    /// The library, or an error naming `file` (the file that needed it).
    static func load(for file: String) throws(HDF5Error) -> HDF5Library {
        switch loaded {
        case .success(let library): return library
        case .failure(let failure): throw HDF5Error(file: file, object: "", problem: .libraryMissing(failure.reason))
        }
    }
}
