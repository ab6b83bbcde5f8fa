import AttendanceModels
import Foundation
import Testing

@testable import AttendanceSimulation

/// Whole runs: the real runtime, outbox and in-process HTTP server driven by the world. Small
/// (a few employees, a few days) so that they stay quick in a debug build.
@Suite(.serialized) struct SimulationRunTests {
    static func options(
        employees: Int = 3, days: Int = 2, seed: UInt64 = 7, policies: [Simulation.Policy] = Simulation.Policy.allCases
    ) -> Simulation.Options {
        var options = Simulation.Options()
        options.employees = employees
        options.days = days
        options.seed = seed
        options.policies = policies
        options.parallelism = 2
        return options
    }

    /// The report without its wall-clock fields.
    static func comparable(_ report: SimulationReport) -> SimulationReport {
        var copy = report
        copy.wallSeconds = 0
        copy.employeeDaysPerSecond = 0
        copy.details = SimulationDetails()
        return copy
    }

    @Test func theSameSeedGivesTheSameReport() async throws {
        let first = try await Simulation.run(Self.options(), environment: .live)
        let second = try await Simulation.run(Self.options(), environment: .live)
        #expect(Self.comparable(first) == Self.comparable(second))
        #expect(try Self.comparable(first).json() == Self.comparable(second).json())
        // And the report is about something: sessions were recorded and delivered by every policy.
        for policy in Simulation.Policy.allCases {
            let report = try #require(first.policies[policy.rawValue])
            #expect(report.delivery.recorded > 0 && report.delivery.delivered > 0, "\(policy)")
        }
        let other = try await Simulation.run(Self.options(seed: 8), environment: .live)
        #expect(Self.comparable(other) != Self.comparable(first))
    }

    /// In process (the server's router, no sockets) the phones get the same answers as over HTTP:
    /// the same report, the transport named in it. Only the bytes differ: the answers lack the
    /// header the application adds to each answer it serves (`Date`), so HTTP bytes are
    /// measured with `--transport http`.
    @Test func theInProcessTransportGivesTheSameReportAsHTTP() async throws {
        var options = Self.options(employees: 4, days: 2, seed: 5, policies: [.default])
        let http = try await Simulation.run(options, environment: .live)
        options.transport = .inprocess
        let inProcess = try await Simulation.run(options, environment: .live)
        #expect(http.transport == "http" && inProcess.transport == "inprocess")
        func withoutBytes(_ report: SimulationReport) throws -> SimulationReport {
            var copy = Self.comparable(report)
            copy.transport = ""
            var policy = try #require(copy.policies["default"])
            policy.device?.bytesPerDay = MedianAndP95([])
            let network = policy.energy?.meanParts.network ?? 0
            policy.energy?.meanParts.network = (network * 10).rounded() / 10
            policy.energy?.milliampHoursPerDay = MedianAndP95([])
            policy.energy?.batteryPercentPerDay = MedianAndP95([])
            copy.policies["default"] = policy
            return copy
        }
        #expect(try withoutBytes(inProcess) == withoutBytes(http))
        let bytes = (
            try #require(inProcess.policies["default"]?.device).bytesPerDay.p50,
            try #require(http.policies["default"]?.device).bytesPerDay.p50
        )
        #expect(bytes.0 < bytes.1 && bytes.0 > 0.9 * bytes.1)
        #expect(try #require(inProcess.policies["default"]).delivery.delivered > 0)
    }

    @Test func inProcessNeedsTheInProcessServer() {
        var options = Self.options()
        options.transport = .inprocess
        options.server = .remote(URL(string: "http://127.0.0.1:9")!, adminToken: "t")
        #expect(
            options.validationErrors().contains(
                "'--transport' is inprocess with '--server'; expected http (a running server is reached over HTTP)"))
    }

    /// A hostile world and both fault options: every kind of fault strikes, and still every
    /// event recorded on a phone reaches the server exactly once.
    @Test func everyFaultStrikesAndNothingIsLostOrDuplicated() async throws {
        var options = Self.options(employees: 6, days: 2, seed: 3, policies: [.default])
        options.faults = FaultOptions(crashRate: 1, offlineHours: 10)
        options.world.iOS.terminationsPerDay = 3
        options.world.iOS.forceQuitProbabilityPerDay = 0.5
        options.world.iOS.rebootProbabilityPerDay = 0.5
        options.world.network.failureProbability = 0.3
        options.world.network.serverRestartsPerDay = 1_000
        let report = try await Simulation.run(options, environment: .live)
        let faults = try #require(report.faults)
        #expect(faults.crashes > 0 && faults.crashesMidWrite > 0 && faults.crashesMidUpload > 0)
        #expect(faults.terminations > 0 && faults.forceQuits > 0 && faults.reboots > 0)
        #expect(faults.networkOutages >= 6 && faults.uploadsWhileOffline > 0)
        #expect(faults.uploadsDuringServerRestart > 0 && faults.requestsFailed > 0 && faults.answersLost > 0)
        // No decision or upload was still under way when iOS took the background time back.
        #expect(report.policies["default"]?.cutBySuspension == 0)
        let energy = try #require(report.policies["default"]?.energy)
        #expect(energy.milliampHoursPerDay.p50 > 0 && energy.meanParts.awake > 0 && energy.meanParts.network > 0)
        let delivery = try #require(report.policies["default"]?.delivery)
        #expect(delivery.recorded > 0)
        #expect(delivery.delivered == delivery.recorded)
        #expect(delivery.lost == 0 && delivery.duplicates == 0)
        // Events recorded during a 10-hour outage waited for it to end.
        #expect(delivery.maxDelaySeconds > 3_600)
    }

    /// Force-quit every day and never opened by hand: only the resume reminder brings the app
    /// back. Tapped, it saves presences that are missed when it is ignored.
    @Test func theResumeReminderBringsBackAForceQuitApp() async throws {
        func run(tap: Double) async throws -> SimulationReport {
            var options = Self.options(employees: 4, days: 3, seed: 11, policies: [.default])
            options.world.iOS.forceQuitProbabilityPerDay = 1
            options.world.iOS.manualOpensPerDay = 0
            options.world.iOS.deniedFraction = 0
            options.world.iOS.whenInUseOnlyFraction = 0
            options.world.iOS.reminderTapProbability = tap
            return try await Simulation.run(options, environment: .live)
        }
        let tapped = try await run(tap: 1)
        let ignored = try await run(tap: 0)
        #expect((tapped.faults?.remindersTapped ?? 0) > 0)
        #expect(ignored.faults?.remindersTapped == 0 && (ignored.faults?.remindersShown ?? 0) > 0)
        #expect((tapped.faults?.eventsMissedWhileForceQuit ?? .max) < (ignored.faults?.eventsMissedWhileForceQuit ?? 0))
        let missed = { (report: SimulationReport) in report.policies["default"]?.checkIn.missedPresences ?? -1 }
        #expect(missed(tapped) < missed(ignored))
    }

    /// iOS shows the arrival reminder on every arrival, but an app that runs withdraws it at
    /// once: never force-quit, nobody sees one. Force-quit every day, it is seen on arrival, and
    /// tapped it opens the app at work.
    @Test func theArrivalReminderIsSeenOnlyWhenTheAppCouldNotRun() async throws {
        func run(forceQuits: Double) async throws -> FaultCounts {
            var options = Self.options(employees: 4, days: 3, seed: 11, policies: [.default])
            options.world.iOS.forceQuitProbabilityPerDay = forceQuits
            options.world.iOS.manualOpensPerDay = 0
            options.world.iOS.deniedFraction = 0
            options.world.iOS.whenInUseOnlyFraction = 0
            options.world.iOS.reminderTapProbability = 1
            return try #require(try await Simulation.run(options, environment: .live).faults)
        }
        let running = try await run(forceQuits: 0)
        #expect(running.arrivalRemindersDelivered > 0)
        #expect(running.arrivalRemindersWithdrawn == running.arrivalRemindersDelivered)
        #expect(running.arrivalRemindersSeen == 0 && running.arrivalRemindersTapped == 0)
        let quit = try await run(forceQuits: 1)
        #expect(quit.arrivalRemindersSeen > 0 && quit.arrivalRemindersTapped == quit.arrivalRemindersSeen)
        #expect(quit.arrivalRemindersWithdrawn < quit.arrivalRemindersDelivered)
    }

    /// Employees without detection tap late (1–15 min after arriving, up to 10 min after
    /// leaving): our app's sheet dates the taps from motion history, the baselines keep the
    /// tap times.
    @Test func lateManualTapsAreDatedFromMotionHistory() async throws {
        var options = Self.options(employees: 4, days: 3, seed: 5, policies: [.default, .naive])
        options.world.iOS.deniedFraction = 1
        options.world.iOS.whenInUseOnlyFraction = 0
        let report = try await Simulation.run(options, environment: .live)
        let ours = try #require(report.policies["default"])
        let naive = try #require(report.policies["naive"])
        #expect(ours.checkOut.timestampErrorSeconds.p95 <= 60)
        #expect(naive.checkOut.timestampErrorSeconds.p95 > 120)
        #expect(ours.checkIn.timestampErrorSeconds.p95 <= 60)
        #expect(naive.checkIn.timestampErrorSeconds.p50 > 60)
        #expect(ours.checkIn.missedPresences == naive.checkIn.missedPresences)
    }

    /// The offline bound on a small world, beside ours: it reads every second of each phone's
    /// radio and motion, so it misses no more stays and books no more false check-ins or
    /// check-outs, and dates them no worse; it has no decision latency and no device figures.
    @Test func theHindsightBoundIsNoWorseThanOurs() async throws {
        let report = try await Simulation.run(
            Self.options(employees: 8, days: 3, seed: 2, policies: [.default, .hindsight]), environment: .live)
        let ours = try #require(report.policies["default"])
        let bound = try #require(report.policies["hindsight"])
        #expect(bound.checkIn.missedPresences <= ours.checkIn.missedPresences)
        #expect(bound.falseCheckInsPer1000Presences <= ours.falseCheckInsPer1000Presences)
        #expect(bound.falseCheckOutsPer1000Presences <= ours.falseCheckOutsPer1000Presences)
        #expect(bound.checkIn.timestampErrorSeconds.p50 <= ours.checkIn.timestampErrorSeconds.p50)
        #expect(bound.checkOut.timestampErrorSeconds.p50 <= ours.checkOut.timestampErrorSeconds.p50)
        #expect(bound.workedMinutesError.p95 <= ours.workedMinutesError.p95)
        #expect(bound.checkIn.decisionLatencySeconds == nil && bound.checkIn.decisionLatencyAlwaysSeconds == nil)
        #expect(bound.device == nil && bound.energy == nil && bound.cutBySuspension == nil)
        #expect(bound.delivery.recorded > 0 && bound.delivery.lost == 0)
        #expect(bound.checkIn.missedByCause["forceQuit"] == 0)
    }

    @Test func badOptionsAreNamed() async throws {
        var options = Self.options()
        options.faults.crashRate = 2
        options.employees = 0
        #expect(
            options.validationErrors() == [
                "'--employees' is 0; expected at least 1", "'--crash-rate' is 2.0; expected a probability from 0 to 1",
            ])
        await #expect(throws: Simulation.Failure.self) { try await Simulation.run(options, environment: .live) }
    }

    @Test func duplicatesAreSessionsOverlappingAnotherOfTheSameStay() {
        func session(_ employee: String, _ site: String, _ checkIn: Double, _ checkOut: Double?) -> RecordedSession {
            RecordedSession(
                employee: UserID(employee), site: SiteID(site), checkIn: checkIn, checkOut: checkOut,
                checkInDecidedAt: checkIn)
        }
        #expect(Simulation.duplicateSessions([session("a", "hq", 0, 100), session("a", "hq", 200, 300)]) == 0)
        #expect(Simulation.duplicateSessions([session("a", "hq", 0, 100), session("a", "hq", 50, 300)]) == 1)
        #expect(Simulation.duplicateSessions([session("a", "hq", 0, nil), session("a", "hq", 500, 600)]) == 1)
        #expect(
            Simulation.duplicateSessions([
                session("a", "hq", 0, 100), session("b", "hq", 50, 300), session("a", "annex", 50, 60),
            ]) == 0)
    }

    /// iOS's region monitor over a planned day: it reports the arrival shortly before or after
    /// the door, and the departure about half a minute after the last packet.
    @Test func theOperatingSystemReportsArrivalAndDeparture() throws {
        let world = WorldSpec()
        let planner = DayPlanner(world: world)
        let profile = try #require(planner.profiles(count: 20, seed: 1).first { $0.siteIndex == 0 && !$0.nightShift })
        let timeline = planner.timeline(for: profile, days: 3, seed: 1)
        let plan = PhonePlan(
            index: 0, profile: profile, timeline: timeline, days: 3, world: world,
            environment: RadioEnvironment(world: world, seed: 1), faults: FaultOptions(), seed: 1)
        let hq = plan.regionCallbacks.filter { $0.siteIndex == 0 }
        let first = try #require(timeline.presences.first)
        let entry = try #require(hq.first { $0.entered })
        #expect(abs(entry.time - first.start) < 240, "entry at \(entry.time), door at \(first.start)")
        let lastPresence = try #require(timeline.presences.last)
        let lastExit = try #require(hq.last { !$0.entered })
        #expect(lastExit.time > lastPresence.end && lastExit.time < lastPresence.end + 400)
        #expect(plan.regionState(site: 0, at: first.start + 1_800))
        #expect(!plan.regionState(site: 0, at: lastPresence.end + 3_600))
    }
}
