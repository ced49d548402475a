import Glibc
import HeadsUpSystem
import Testing

/// The one dlopen loader behind libhdf5, libmosquitto and libcurl.
@Suite("DynamicLibrary")
struct DynamicLibraryTests {
    /// A bind step that accepts any file with `symbol`, handing back its address.
    private func binding(_ symbol: String) -> (DynamicLibrary) -> Result<UnsafeMutableRawPointer, DynamicLibrary.Refusal> {
        { library in library.address(of: symbol).map { .success($0) } ?? .failure(.init("it has no \(symbol)")) }
    }

    @Test func opensTheFirstFileThatLoads() throws {
        let (library, cosine) = try DynamicLibrary.load(firstOf: ["libheadsup-no-such-library.so.9", "libm.so.6", "libc.so.6"], bind: binding("cos"))
        #expect(library.file == "libm.so.6")
        let cos = unsafeBitCast(cosine, to: (@convention(c) (Double) -> Double).self)
        #expect(cos(0) == 1)
    }

    @Test func aRefusedFileIsPassedOver() throws {
        // libc has no `cos`: the bind step refuses it and libm is taken.
        let (library, _) = try DynamicLibrary.load(firstOf: ["libc.so.6", "libm.so.6"], bind: binding("cos"))
        #expect(library.file == "libm.so.6")
    }

    @Test func theErrorNamesEveryFileTriedAndWhy() {
        do {
            _ = try DynamicLibrary.load(firstOf: ["libheadsup-no-such-library.so.9", "libc.so.6"], bind: binding("headsup_no_such_symbol"))
            Issue.record("loaded a library without the symbol")
        } catch {
            #expect(error.attempts.map(\.file) == ["libheadsup-no-such-library.so.9", "libc.so.6"])
            #expect(error.description == "libheadsup-no-such-library.so.9: not found; libc.so.6: it has no headsup_no_such_symbol")
        }
    }

    /// A file dlopen opens but cannot use keeps dlerror's own reason, not "not found".
    @Test func aFileThatIsNoLibraryKeepsTheLinkersReason() throws {
        let directory = "/tmp/headsup-dynamic-library-test-\(getpid())"
        mkdir(directory, 0o700)
        defer { rmdir(directory) }
        let path = "\(directory)/libtext.so"
        let file = fopen(path, "w")
        fputs("not an ELF file\n", file)
        fclose(file)
        defer { unlink(path) }
        do {
            _ = try DynamicLibrary.load(firstOf: [path], bind: binding("cos"))
            Issue.record("a text file loaded as a library")
        } catch {
            #expect(error.attempts.count == 1)
            #expect(error.attempts[0].reason != "not found" && !error.attempts[0].reason.hasPrefix(path), "\(error.attempts[0].reason)")
            #expect(!error.attempts[0].reason.isEmpty)
        }
    }

    @Test func noCandidatesIsAnErrorThatSaysSo() {
        do {
            _ = try DynamicLibrary.load(firstOf: [], bind: binding("cos"))
            Issue.record("loading from no files succeeded")
        } catch {
            #expect(error.description == "no library file was named")
        }
    }
}
