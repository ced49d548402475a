import CCurl
import CHDF5
import CIIO
import CMosquitto
import CSDBus
import HeadsUpSystem
import Testing

/// The C wrapper targets link and their shims expose what Swift cannot import.
@Suite("System libraries")
struct SystemLibraryTests {
    /// libhdf5, libmosquitto and libcurl are loaded with dlopen (their shims
    /// say why): every function binds and the globals behind hdf5.h's macros read.
    @Test func hdf5LoadsAndItsGlobalsResolve() throws {
        let names = Array((0...).lazy.map { headsup_hdf5_name($0) }.prefix { $0 != nil }.map { String(cString: $0!) })
        #expect(names.contains("libhdf5_serial.so.103") && names.last == "libhdf5.so")
        let (_, api) = try DynamicLibrary.load(firstOf: names) { (library: DynamicLibrary) -> Result<headsup_hdf5, DynamicLibrary.Refusal> in
            var api = headsup_hdf5()
            var problem = [CChar](repeating: 0, count: 256)
            guard headsup_hdf5_bind(library.handle, &api, &problem, problem.count) == nil else {
                return .failure(DynamicLibrary.Refusal(String(cString: problem)))
            }
            return .success(api)
        }
        let version = try #require(api.H5get_libversion)
        var major: UInt32 = 0
        var minor: UInt32 = 0
        var release: UInt32 = 0
        let status = version(&major, &minor, &release)
        #expect(status >= 0)
        #expect(major == 1 && minor >= 10)
        #expect(api.H5T_NATIVE_FLOAT_g > 0)
        #expect(api.H5T_NATIVE_DOUBLE_g != api.H5T_NATIVE_FLOAT_g)
        #expect(api.H5P_CLS_FILE_ACCESS_ID_g > 0)
    }

    @Test func mosquittoLoads() throws {
        let (_, api) = try DynamicLibrary.load(firstOf: [HEADSUP_LIBMOSQUITTO]) {
            (library: DynamicLibrary) -> Result<headsup_mosquitto, DynamicLibrary.Refusal> in
            var api = headsup_mosquitto()
            if let problem = headsup_mosquitto_bind(library.handle, &api) { return .failure(DynamicLibrary.Refusal(String(cString: problem))) }
            return .success(api)
        }
        let describe = try #require(api.mosquitto_strerror)
        let text = try #require(describe(MOSQ_ERR_NO_CONN.rawValue))
        #expect(String(cString: text).lowercased().contains("connect"), "\(String(cString: text))")
    }

    @Test func curlLoads() throws {
        let (_, api) = try DynamicLibrary.load(firstOf: [HEADSUP_LIBCURL]) {
            (library: DynamicLibrary) -> Result<headsup_curl, DynamicLibrary.Refusal> in
            var api = headsup_curl()
            if let problem = headsup_curl_bind(library.handle, &api) { return .failure(DynamicLibrary.Refusal(String(cString: problem))) }
            return .success(api)
        }
        #expect(api.curl_easy_init != nil && api.curl_slist_free_all != nil)
    }

    @Test func libiioLinks() {
        var major: UInt32 = 0
        var minor: UInt32 = 0
        var tag = [CChar](repeating: 0, count: 8)
        iio_library_get_version(&major, &minor, &tag)
        #expect(major == 0 && minor >= 20)
        #expect(iio_get_backends_count() > 0)
    }

    @Test func sdBusLinksAndReportsErrorsAsNegativeErrno() {
        var bus: OpaquePointer?
        // A bus address that cannot exist: sd-bus must fail cleanly, not crash.
        #expect(sd_bus_new(&bus) >= 0)
        #expect(sd_bus_set_address(bus, "unix:path=/nonexistent/headsup-test-socket") >= 0)
        #expect(sd_bus_start(bus) < 0)
        sd_bus_unref(bus)
        var error = headsup_sd_bus_error_null()
        #expect(sd_bus_error_is_set(&error) == 0)
    }
}
