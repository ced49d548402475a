import CCurl
import CHDF5
import CIIO
import CMosquitto
import CSDBus
import Testing

/// The C wrapper targets link and their shims expose what Swift cannot import.
@Suite("System libraries")
struct SystemLibraryTests {
    /// libhdf5, libmosquitto and libcurl are loaded with dlopen (their shims
    /// say why): every function binds and the globals behind hdf5.h's macros read.
    @Test func hdf5LoadsAndItsGlobalsResolve() throws {
        var api = headsup_hdf5()
        var problem = [CChar](repeating: 0, count: 2048)
        let failed = headsup_hdf5_load(&api, &problem, problem.count) != nil
        #expect(!failed, "\(String(decoding: problem.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
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
        var api = headsup_mosquitto()
        let problem = headsup_mosquitto_load(&api)
        #expect(problem == nil, "\(problem.map { String(cString: $0) } ?? "")")
        let describe = try #require(api.mosquitto_strerror)
        let text = try #require(describe(MOSQ_ERR_NO_CONN.rawValue))
        #expect(String(cString: text).lowercased().contains("connect"), "\(String(cString: text))")
    }

    @Test func curlLoads() throws {
        var api = headsup_curl()
        let problem = headsup_curl_load(&api)
        #expect(problem == nil, "\(problem.map { String(cString: $0) } ?? "")")
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
