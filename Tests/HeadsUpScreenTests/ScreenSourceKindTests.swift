import HeadsUpDBus
import HeadsUpPipeline
import Testing

@testable import HeadsUpScreen

@Suite("Screen sources: what each service's answer means")
struct ScreenSourceKindTests {
    @Test func screenSaversBlankOrLock() {
        #expect(ScreenSourceKind.screenSaver(.gnomeScreenSaver, active: .boolean(true)) == .off)
        #expect(ScreenSourceKind.screenSaver(.kdeScreenSaver, active: .boolean(true)) == .locked)
        #expect(ScreenSourceKind.screenSaver(.kdeScreenSaver, active: .variant(.boolean(false))) == .on)
        #expect(ScreenSourceKind.screenSaver(.gnomeScreenSaver, active: .string("yes")) == nil, "a wrong type is no answer")
        #expect(ScreenSourceKind.screenSaver(.gnomeScreenSaver, active: .int32(1)) == nil)
    }

    @Test func mutterPowerSaveModes() {
        #expect(ScreenSourceKind.powerSaveMode(.variant(.int32(0))) == .on)
        #expect([1, 2, 3].allSatisfy { ScreenSourceKind.powerSaveMode(.int32($0)) == .off })
        #expect(ScreenSourceKind.powerSaveMode(.int32(-1)) == .unknown)
        #expect(ScreenSourceKind.powerSaveMode(.string("0")) == nil)
    }

    @Test func logindHints() {
        func session(locked: DBusValue, idle: DBusValue) -> ScreenState? {
            ScreenSourceKind.session(["LockedHint": .variant(locked), "IdleHint": .variant(idle), "Active": .variant(.boolean(true))])
        }
        #expect(session(locked: .boolean(false), idle: .boolean(false)) == .on)
        #expect(session(locked: .boolean(true), idle: .boolean(true)) == .locked)
        #expect(session(locked: .boolean(false), idle: .boolean(true)) == .idle)
        #expect(session(locked: .string("no"), idle: .boolean(false)) == nil)
        #expect(ScreenSourceKind.session(["LockedHint": .boolean(false)]) == nil, "IdleHint missing")
    }

    @Test func onlyLogindIsOnTheSystemBus() {
        #expect(ScreenSourceKind.allCases.filter(\.onSystemBus) == [.logind])
        #expect(Set(ScreenSourceKind.allCases.map(\.service)).count == 4)
    }
}
