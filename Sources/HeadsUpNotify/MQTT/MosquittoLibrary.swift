import CMosquitto
import HeadsUpSystem

/// libmosquitto's functions, loaded the first time a sink needs them (see
/// CMosquitto/shim.h for why HeadsUp does not link the library).
struct MosquittoLibrary: @unchecked Sendable {
    /// Every field is set: `headsup_mosquitto_bind` fails otherwise.
    let api: headsup_mosquitto

    /// Loading is tried once per process (dlopen's own unit) and its outcome
    /// kept: the table is immutable, and a missing library stays missing.
    static let loaded: Result<MosquittoLibrary, MQTTError> = {
        do throws(DynamicLibraryError) {
            let (_, api) = try DynamicLibrary.load(firstOf: [HEADSUP_LIBMOSQUITTO]) {
                (library: DynamicLibrary) -> Result<headsup_mosquitto, DynamicLibrary.Refusal> in
                var api = headsup_mosquitto()
                if let problem = headsup_mosquitto_bind(library.handle, &api) { return .failure(DynamicLibrary.Refusal(String(cString: problem))) }
                return .success(api)
            }
            _ = api.mosquitto_lib_init!()
            return .success(MosquittoLibrary(api: api))
        } catch {
            return .failure(.libraryMissing(HEADSUP_LIBMOSQUITTO, error.description))
        }
    }()

    func describe(_ code: Int32) -> String { api.mosquitto_strerror!(code).map { String(cString: $0) } ?? "error \(code)" }

    func describeRefusal(_ code: Int32) -> String {
        api.mosquitto_connack_string!(code).map { String(cString: $0) } ?? "refused (\(code))"
    }
}
