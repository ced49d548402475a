import CCurl
import HeadsUpSystem

/// libcurl's functions, loaded the first time a webhook sink is made (see
/// CCurl/shim.h for why HeadsUp does not link the library).
struct CurlLibrary: @unchecked Sendable {
    /// Every field is set: `headsup_curl_bind` fails otherwise.
    let api: headsup_curl

    /// Loading is tried once per process (dlopen's own unit) and its outcome
    /// kept: the table is immutable and a missing library stays missing.
    static let loaded: Result<CurlLibrary, DynamicLibraryError> = {
        do throws(DynamicLibraryError) {
            let (_, api) = try DynamicLibrary.load(firstOf: [HEADSUP_LIBCURL]) {
                (library: DynamicLibrary) -> Result<headsup_curl, DynamicLibrary.Refusal> in
                var api = headsup_curl()
                if let problem = headsup_curl_bind(library.handle, &api) { return .failure(DynamicLibrary.Refusal(String(cString: problem))) }
                return .success(api)
            }
            return .success(CurlLibrary(api: api))
        } catch {
            return .failure(error)
        }
    }()
}
