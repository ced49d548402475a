import CMosquitto

/// libmosquitto's functions, loaded the first time a sink needs them (see
/// CMosquitto/shim.h for why HeadsUp does not link the library).
struct MosquittoLibrary: @unchecked Sendable {
    /// Every field is set: `headsup_mosquitto_load` fails otherwise.
    let api: headsup_mosquitto

    /// Loading is tried once per process (dlopen's own unit) and its outcome
    /// kept: the table is immutable, and a missing library stays missing.
    static let loaded: Result<MosquittoLibrary, MQTTError> = {
        var api = headsup_mosquitto()
        if let problem = headsup_mosquitto_load(&api) {
            return .failure(.libraryMissing(HEADSUP_LIBMOSQUITTO, String(cString: problem)))
        }
        _ = api.mosquitto_lib_init!()
        return .success(MosquittoLibrary(api: api))
    }()

    func describe(_ code: Int32) -> String { api.mosquitto_strerror!(code).map { String(cString: $0) } ?? "error \(code)" }

    func describeRefusal(_ code: Int32) -> String {
        api.mosquitto_connack_string!(code).map { String(cString: $0) } ?? "refused (\(code))"
    }
}
