import Foundation
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

/// `evaluate` by phone and by pose: where a session's phone and pose come
/// from, and the per-group figures of small synthetic sessions.
@Suite("Phones and poses")
struct SessionTraitsTests {
    @Test func aPhoneComesFromTheSidecarThenTheManifestThenACarryFileName() throws {
        #expect(SessionTraits.phoneFromFileName("/d/Pixel_Jamie_Hard_Purse_2_0.csv") == "Pixel")
        #expect(SessionTraits.phoneFromFileName("Nexus_Jamie_Hard_InHand_1_1.csv") == "Nexus")
        #expect(SessionTraits.phoneFromFileName("data_new_20190530_174330_0.csv") == nil, "six words, but no position fourth")
        #expect(SessionTraits.phoneFromFileName("walk.csv") == nil)

        let directory = try TemporaryDirectory()
        let carry = try directory.write("Samsung_A_Hard_Armband_1_0.csv", "")
        let plain = try directory.write("walk.csv", "")
        #expect(SessionTraits.resolve(path: carry) == SessionTraits(phone: "Samsung"))
        #expect(SessionTraits.resolve(path: plain) == SessionTraits())
        #expect(
            SessionTraits.resolve(path: plain, phones: [plain: "PinePhone"], poses: [plain: "upright"])
                == SessionTraits(phone: "PinePhone", pose: "upright"))
        // The sidecar wins, field by field; `device` is read as the phone.
        _ = try directory.write("walk.json", #"{"format": "headsup-recording", "device": "Librem 5", "pose": "texting"}"#)
        #expect(
            SessionTraits.resolve(path: plain, phones: [plain: "PinePhone"], poses: [plain: "upright"])
                == SessionTraits(phone: "Librem 5", pose: "texting"))
        _ = try directory.write("walk.json", #"{"phone": "", "pose": "at-ear"}"#)
        #expect(SessionTraits.resolve(path: plain, phones: [plain: "PinePhone"]) == SessionTraits(phone: "PinePhone", pose: "at-ear"))
        _ = try directory.write("walk.json", "not json")
        #expect(SessionTraits.resolve(path: plain, poses: [plain: "upright"]) == SessionTraits(pose: "upright"))
    }

    /// Three 60 s sessions at 100 Hz: phone A in the hands texting (spinning:
    /// found), phone A in the hands upright (still: missed), phone B in a
    /// purse (still but spinning 25–35 s: called in about a fifth of its
    /// steady windows). Phones and poses from a manifest's fields.
    @Test func eachPhoneAndPoseGetsItsOwnFiguresAndUnnamedSessionsNone() throws {
        let directory = try TemporaryDirectory()
        let texting = try directory.write("texting.csv", ReportTests.session(pocket: 0, hands: 60) { _ in true })
        let upright = try directory.write("upright.csv", ReportTests.session(pocket: 0, hands: 60) { _ in false })
        let purse = try directory.write("purse.csv", ReportTests.session(pocket: 60, hands: 0) { $0 >= 25 && $0 < 35 })
        let model = EvaluationRun.Model(
            scorer: MotionEnergyScorer(), windowing: .init(length: 50, hop: 25), distraction: .init(), threshold: 0.5, layout: "time-major",
            csv: .init())
        let part = EvaluationRun.Part(model: model, files: [texting, upright, purse])
        let run = EvaluationRun(
            phones: [texting: "A", upright: "A", purse: "B"], poses: [texting: "texting", upright: "upright"])
        let report = try run.report(name: "energy", parts: [part], date: Date(timeIntervalSince1970: 0))
        #expect(report.details.map(\.phone) == ["A", "A", "B"])
        #expect(report.details.map(\.pose) == ["texting", "upright", nil])

        let phones = try #require(report.phones)
        #expect(phones.by == "phone" && phones.groups.map(\.group) == ["A", "B"])
        let a = phones.groups[0]
        #expect(a.sessions == 2 && a.steadyOtherWindows == 0 && a.otherCalledDistracted == nil)
        #expect(abs(try #require(a.handsFound) - 0.5) < 0.02, "texting found, upright not: \(String(describing: a.handsFound))")
        let b = phones.groups[1]
        #expect(b.steadyHandsWindows == 0 && b.handsFound == nil)
        let called = try #require(b.otherCalledDistracted)
        #expect(called > 0.15 && called < 0.3, "\(called)")
        #expect(try #require(b.steadyFalseEpisodesPerHour) > 0)

        let poses = try #require(report.poses)
        #expect(poses.groups.map(\.group) == ["texting", "upright"], "the purse names no pose")
        #expect(poses.groups.map(\.handsFound) == [1, 0])
        #expect(report.text.contains("by phone (steady windows; threshold 0.50)"))
        #expect(report.text.contains("by pose (steady windows; threshold 0.50)"))

        // A run whose sessions name none has neither table, and its JSON no key for them.
        let plain = try EvaluationRun().report(name: "energy", parts: [part], date: Date(timeIntervalSince1970: 0))
        #expect(plain.phones == nil && plain.poses == nil)
        let json = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!json.contains("\"phones\"") && !json.contains("\"poses\""))
    }

    @Test func aManifestNamesPhonesAndPoses() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("a.csv", "")
        let manifest = try directory.write(
            "manifest.json",
            #"{"sessions": [{"file": "a.csv", "split": "test", "phone": "PinePhone", "pose": "upright"}, {"file": "b.csv", "split": "test"}]}"#)
        let loaded = try DatasetManifest.load(manifest)
        #expect(loaded.phones == [directory.path("a.csv"): "PinePhone"])
        #expect(loaded.poses == [directory.path("a.csv"): "upright"])
    }
}
