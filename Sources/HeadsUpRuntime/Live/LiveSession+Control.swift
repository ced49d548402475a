import Foundation
import HeadsUpData
import HeadsUpNotify
import HeadsUpSystem
import Logging

extension LiveSession {
    /// Takes up a saved snooze (after a restart) and tells the sinks.
    func restoreSnooze() {
        guard let store = parts.snoozeStore else { return }
        do {
            if let saved = try store.load() {
                snoozeClock.restore(saved, wallNow: parts.wallClock.secondsSince1970(), monotonicNow: now)
                if let snooze = snoozeClock.snooze {
                    logger.notice("warnings stay snoozed until \(Self.describe(snooze.until)) (from \(store.path))")
                }
            }
        } catch {
            logger.error("\(error)")
        }
        parts.dispatcher?.update(.snoozed(until: snoozeClock.snooze?.until))
    }

    /// Serves the control socket and the inbox, ends a snooze whose time is
    /// up, and tells the pipeline whether warnings are snoozed.
    func takeControlRequests() {
        for item in parts.inbox.take() {
            let response = answer(item.request, from: item.origin)
            item.reply?(response)
        }
        if snoozeClock.expire(monotonicNow: now) {
            logger.notice("snooze over: warnings are on again")
            saveSnooze()
        }
        pipeline.warningsSnoozed = snoozeClock.isActive(monotonicNow: now)
    }

    /// Follows a request and reports the status after it.
    public func answer(_ request: ControlRequest, from origin: ControlOrigin = .local) -> ControlResponse {
        switch request {
        case .status:
            break
        case .snooze(let seconds):
            guard seconds > 0, seconds <= Snooze.longest else {
                logger.warning("a snooze of \(seconds) s refused, asked by \(origin)")
                return ControlResponse(status: status, error: "a snooze lasts from 1 s to a week, not \(seconds) s")
            }
            snoozeClock.start(length: seconds, wallNow: parts.wallClock.secondsSince1970(), monotonicNow: now)
            logger.notice("warnings snoozed until \(Self.describe(snoozeClock.snooze!.until)), asked by \(origin)")
            parts.dispatcher?.acknowledge()
            saveSnooze()
        case .resume:
            snoozeClock.stop()
            logger.notice("snooze ended by request: warnings are on again, asked by \(origin)")
            saveSnooze()
        case .acknowledge:
            parts.dispatcher?.acknowledge()
        }
        pipeline.warningsSnoozed = snoozeClock.isActive(monotonicNow: now)
        return ControlResponse(status: status)
    }

    private func saveSnooze() {
        parts.dispatcher?.update(.snoozed(until: snoozeClock.snooze?.until))
        do { try parts.snoozeStore?.save(snoozeClock.snooze) } catch { logger.warning("\(error)") }
    }

    /// What `headsup status` shows.
    public var status: DaemonStatus {
        let counters = pipeline.counters
        let notifications = parts.dispatcher?.counters
        var status = DaemonStatus(
            pid: getpid(), uptime: now - startedAt, distracted: pipeline.tracker.isDistracted, smoothedScore: pipeline.tracker.smoothedScore,
            walking: pipeline.walking.isWalking, insideRegions: pipeline.monitor.insideRegionNames.sorted(),
            regions: pipeline.monitor.regions.map(\.name),
            snoozedUntil: snoozeClock.isActive(monotonicNow: now) ? snoozeClock.snooze?.until : nil,
            windowsScored: counters.windowsScored, warnings: counters.warnings, notificationsSent: notifications?.sent ?? 0,
            notificationsFailed: notifications?.failed ?? 0, summary: summary)
        if let screen = parts.screen {
            status.screen = pipeline.screen.rawValue
            status.screenSources = Dictionary(screen.sourceAnswers.map { ($0.source, $0.state?.rawValue ?? "no answer") }) { first, _ in first }
        }
        status.sensors = parts.motion.readPaths
        if let locations = parts.locations {
            status.location = locations.status
            status.insideCrossings = pipeline.crossingMonitor?.crossingsInside.map(\.region.name)
        }
        return status
    }

    static func describe(_ unixSeconds: Double) -> String { localTime(unixSeconds, format: "%Y-%m-%dT%H:%M:%S%z") }
}

extension LiveSession.Parts {
    /// The control socket and the snooze store at their standard places
    /// (``ControlSocketPath``, ``SnoozeStore/standard(environment:)``). A
    /// socket that cannot be bound costs only `snooze` and `status`: the
    /// session warns and goes on, since warning is the job.
    public mutating func attachControl(environment: [String: String], logger: Logger) {
        snoozeStore = SnoozeStore.standard(environment: environment)
        do {
            control = try ControlSocket(path: ControlSocketPath.resolve(environment: environment))
        } catch {
            logger.warning("\(error); headsup snooze and headsup status will not reach this run")
        }
    }
}
