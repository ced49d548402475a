import CHDF5
import CIIO
import CSDBus
import Testing

/// The C wrapper targets link and their shims expose what Swift cannot import.
@Suite("System libraries")
struct SystemLibraryTests {
    @Test func hdf5LinksAndShimsResolveItsMacros() {
        var major: UInt32 = 0
        var minor: UInt32 = 0
        var release: UInt32 = 0
        #expect(H5get_libversion(&major, &minor, &release) >= 0)
        #expect(major == 1 && minor >= 10)
        #expect(headsup_H5T_NATIVE_FLOAT() > 0)
        #expect(headsup_H5T_NATIVE_DOUBLE() != headsup_H5T_NATIVE_FLOAT())
        #expect(headsup_H5P_DEFAULT() == 0)
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
