import AttendanceEngine
import AttendanceHTTP
import AttendanceModels
import AttendanceServer
import AttendanceStorage
import AttendanceSync
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging

/// `attendance simulate`: plans every employee's days from the seed, runs each policy on each
/// phone against the real server over HTTP, reads back the sessions the server recorded, and
/// scores them against the truth.
public enum Simulation {
    public enum Policy: String, Sendable, CaseIterable, Hashable {
        case `default`, naive, altbeacon, hindsight

        /// Decides after the run from the whole of it (`hindsight`): no decision latency, and no
        /// device, energy or suspension figures (it runs on no phone).
        public var isOffline: Bool { self == .hindsight }
    }

    /// The server the phones talk to.
    public enum Server: Sendable {
        /// A real server in this process, on a temporary SQLite file, over loopback HTTP.
        case inProcess
        /// A running server (`--server URL`), with an admin token to set it up.
        case remote(URL, adminToken: String)
    }

    /// How the phones reach the server (`--transport`).
    public enum Transport: String, Sendable, CaseIterable, Hashable {
        /// Real HTTP over loopback (or to `--server`): the full path, the default.
        case http
        /// The server's router and handlers in this process, without sockets.
        case inprocess
    }

    public struct Options: Sendable {
        public var employees = 200
        public var transport = Transport.http
        /// Our policy's engine settings (`--engine-config`): the defaults, or a file's over them.
        public var engine = Configuration()
        public var days = 5
        public var seed: UInt64 = 1
        public var policies: [Policy] = [.default]
        public var faults = FaultOptions()
        public var world = WorldSpec()
        public var server = Server.inProcess
        /// Phones simulated at once (each phone's run is independent of the others').
        public var parallelism = 4
        /// One employee's phone (our policy) whose whole log is written to a file (`--phone-log`).
        public var phoneLog: PhoneLog?

        public struct PhoneLog: Sendable, Hashable {
            public var employee: String
            public var path: String

            public init(employee: String, path: String) {
                self.employee = employee
                self.path = path
            }
        }

        public init() {}

        /// Every option that can't run, as "'field' is value; expected …".
        public func validationErrors() -> [String] {
            var errors = world.validationErrors()
            if employees < 1 { errors.append("'--employees' is \(employees); expected at least 1") }
            if days < 1 { errors.append("'--days' is \(days); expected at least 1") }
            if !(0...1).contains(faults.crashRate) {
                errors.append("'--crash-rate' is \(faults.crashRate); expected a probability from 0 to 1")
            }
            if faults.offlineHours < 0 || faults.offlineHours > Double(days) * 24 {
                errors.append(
                    "'--offline-hours' is \(faults.offlineHours); expected 0 to \(days * 24) (the simulated days)")
            }
            if case .remote = server, transport == .inprocess {
                errors.append(
                    "'--transport' is inprocess with '--server'; expected http (a running server is reached over HTTP)")
            }
            if case .remote = server, days > 25 {
                errors.append(
                    "'--days' is \(days) with '--server'; expected at most 25 (a server refuses events more than 30 days old)"
                )
            }
            if policies.isEmpty {
                errors.append("'--policy' names no policy; expected default, naive, altbeacon, hindsight or all")
            }
            if let phoneLog {
                let known = (0..<max(1, employees)).map(DayPlanner.employeeID)
                if !known.contains(UserID(phoneLog.employee)) {
                    errors.append(
                        "'--phone-log' names '\(phoneLog.employee)'; expected an employee from \(known.first!) to \(known.last!)"
                    )
                }
                if !policies.contains(.default) {
                    errors.append("'--phone-log' logs our policy's phone; expected '--policy' default or all")
                }
            }
            return errors
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The site's region identity (uuid + major).
    public static func siteBeacon(_ site: SiteSpec) -> SiteBeacon {
        SiteBeacon(uuid: UUID(uuidString: site.uuid) ?? SiteBeacon.defaultUUID, major: site.major)
    }

    /// Runs the simulation; `progress` is called with (phones done, phones) as they finish. The
    /// server runs in `environment`, whose clock also places the simulated days (they end yesterday).
    public static func run(
        _ options: Options, environment: ServerEnvironment,
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> SimulationReport {
        let errors = options.validationErrors()
        guard errors.isEmpty else { throw Failure(description: errors.joined(separator: "\n")) }
        let started = Date()
        // The simulated days end yesterday, so that no event is in the server's future.
        let today = (environment.now().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400
        let epoch = Date(timeIntervalSince1970: today - Double(options.days + 1) * 86_400)

        return try await withServer(options, environment: environment) { link, adminToken in
            let admin = AdminClient(link: link, adminToken: adminToken)
            let siteIDs = try await admin.ensureSites(options.world)
            let results = try await runPhones(
                options, admin: admin, link: link, siteIDs: siteIDs, epoch: epoch, progress: progress)
            return try await score(
                options, results: results, admin: admin, siteIDs: siteIDs, epoch: epoch, started: started,
                transport: link.name)
        }
    }

    // MARK: - Server

    /// Runs `body` with a link to the server the options name: a running one, or a real one in this
    /// process on a temporary SQLite file, reached over loopback HTTP or handed each request in process.
    private static func withServer(
        _ options: Options, environment: ServerEnvironment,
        _ body: @Sendable (any ServerLink, String) async throws -> SimulationReport
    ) async throws -> SimulationReport {
        if case .remote(let url, let token) = options.server { return try await body(HTTPLink(baseURL: url), token) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "attendance-simulate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let repository = try SQLiteRepository.open(path: directory.appendingPathComponent("server.sqlite").path)
        let token = "simulator-" + SHA256.hex(UUID().uuidString).prefix(32)
        _ = try await AuthService(repository: repository, environment: environment).installAdminToken(configured: token)
        var limits = IngestLimits()
        limits.maxPastSeconds = max(limits.maxPastSeconds, Double(options.days + 3) * 86_400)
        var logger = Logger(label: "attendance.simulate")
        logger.logLevel = .error
        // No receipts in the answers: their size hangs on how many events each checkpoint covers,
        // which is timing, and the same seed must give the same report (bytes a phone sent and got).
        let serverOptions = ServerOptions(port: 0, limits: limits, receiptWaitMilliseconds: 0)
        switch options.transport {
        case .http:
            let server = try await RunningServer.start(
                repository: repository, options: serverOptions, logger: logger, environment: environment)
            do {
                let report = try await body(HTTPLink(baseURL: server.baseURL), token)
                try await server.stop()
                return report
            } catch {
                try? await server.stop()
                throw error
            }
        case .inprocess:
            defer { repository.shutdown() }
            let app = try AttendanceHTTPServer.application(
                repository: repository, options: serverOptions, logger: logger, environment: environment)
            return try await app.test(.router) { client in try await body(InProcessLink(client: client), token) }
        }
    }

    // MARK: - Phones

    struct PhoneResult: Sendable {
        var index: Int
        var presences: [TruePresence]
        var employee: UserID
        var outcomes: [Policy: (account: PhoneAccount, outcome: PhoneOutcome)]
        var access: PhonePlan.LocationAccess = .always
        var incidents: [SimulationDetails.Incident] = []
        var forceQuits: [Double] = []
        var desk: SimulationDetails.Desk?
    }

    private static func runPhones(
        _ options: Options, admin: AdminClient, link: any ServerLink, siteIDs: [SiteBeacon: SiteID], epoch: Date,
        progress: @escaping @Sendable (Int, Int) -> Void
    ) async throws -> [PhoneResult] {
        let world = options.world
        let planner = DayPlanner(world: world)
        let profiles = planner.profiles(count: options.employees, seed: options.seed)
        let environment = RadioEnvironment(world: world, seed: options.seed)
        let restarts = serverRestarts(world: world, days: options.days, seed: options.seed)
        let hindsight: HindsightEstimator? = options.policies.contains(.hindsight)
            ? HindsightEstimator(model: HindsightModel(world: world)) : nil
        let run = String(options.seed) + "-" + UUID().uuidString.prefix(8)
        let next = Locked(0)
        let done = Locked(0)
        return try await withThrowingTaskGroup(of: [PhoneResult].self) { group in
            for _ in 0..<max(1, options.parallelism) {
                group.addTask {
                    var results: [PhoneResult] = []
                    while true {
                        let index = next.withLock { value -> Int in
                            defer { value += 1 }
                            return value
                        }
                        guard index < profiles.count else { return results }
                        let profile = profiles[index]
                        let timeline = planner.timeline(for: profile, days: options.days, seed: options.seed)
                        let plan = PhonePlan(
                            index: index, profile: profile, timeline: timeline, days: options.days, world: world,
                            environment: environment, faults: options.faults, seed: options.seed)
                        var result = PhoneResult(
                            index: index, presences: timeline.truth, employee: profile.id, outcomes: [:],
                            access: plan.access,
                            incidents: plan.incidents, forceQuits: plan.forceQuits,
                            desk: environment.desk(site: profile.siteIndex, at: profile.desk))
                        for policy in options.policies {
                            let account = try await admin.enroll(
                                name: "\(profile.id.rawValue) \(policy.rawValue) \(run)",
                                platform: policy == .altbeacon ? "android" : "ios")
                            let seed = options.seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
                            let outcome: PhoneOutcome
                            switch policy {
                            case .default:
                                outcome = try await DefaultPolicyPhone(
                                    plan: plan, world: world, environment: environment, account: account, link: link,
                                    siteIDs: siteIDs, serverRestarts: restarts, epoch: epoch, seed: seed,
                                    logPath: options.phoneLog?.employee == profile.id.rawValue
                                        ? options.phoneLog?.path : nil,
                                    engine: options.engine
                                ).run()
                            case .naive, .altbeacon, .hindsight:
                                outcome = await BaselinePhone(
                                    kind: BaselinePhone.Kind(rawValue: policy.rawValue)!, plan: plan, world: world,
                                    environment: environment,
                                    account: account, link: link, siteIDs: siteIDs, serverRestarts: restarts,
                                    epoch: epoch,
                                    seed: seed, hindsight: hindsight
                                ).run()
                            }
                            result.outcomes[policy] = (account, outcome)
                        }
                        results.append(result)
                        let finished = done.withLock { value -> Int in
                            value += 1
                            return value
                        }
                        progress(finished, profiles.count)
                    }
                }
            }
            var all: [PhoneResult] = []
            for try await part in group { all += part }
            return all.sorted { $0.index < $1.index }
        }
    }

    /// The server's restarts: the world's rate a day, each refusing connections for 10 s.
    static func serverRestarts(world: WorldSpec, days: Int, seed: UInt64) -> [Range<Double>] {
        var random = SplitMix64(seed: seed ^ 0x5E4E_4E57)
        var windows: [Range<Double>] = []
        for day in 0..<days {
            for _ in 0..<DayPlanner.poisson(mean: world.network.serverRestartsPerDay, random: &random) {
                let start = Double(day) * 86_400 + Double.random(in: 0..<86_400, using: &random)
                windows.append(start..<(start + 10))
            }
        }
        return windows.sorted { $0.lowerBound < $1.lowerBound }
    }

    // MARK: - Scoring

    private static func score(
        _ options: Options, results: [PhoneResult], admin: AdminClient, siteIDs: [SiteBeacon: SiteID], epoch: Date,
        started: Date, transport: String
    ) async throws -> SimulationReport {
        let siteNames = Dictionary(
            uniqueKeysWithValues: options.world.sites.map {
                (siteIDs[siteBeacon($0)]?.rawValue ?? $0.id, SiteID($0.id))
            })
        let truth = results.flatMap(\.presences)
        let horizon = Double(options.days) * 86_400 + 12 * 3_600
        let employeeDays = options.employees * options.days
        var policies: [String: PolicyReport] = [:]
        var faults = FaultCounts()
        var details = SimulationDetails(
            truth: truth,
            locationAccess: Dictionary(
                uniqueKeysWithValues: results.map { ($0.employee.rawValue, $0.access.rawValue) }),
            incidents: Dictionary(
                uniqueKeysWithValues: results.map {
                    ($0.employee.rawValue, $0.incidents)
                }),
            desks: results.reduce(into: [:]) { $0[$1.employee.rawValue] = $1.desk })
        for policy in options.policies {
            var sessions: [RecordedSession] = []
            var recorded = 0
            var delivered = 0
            var maxDelay = 0.0
            var ranging: [Double] = []
            var wakeups: [Double] = []
            var bytes: [Double] = []
            var awake: [Double] = []
            var location: [Double] = []
            var energy: [EnergyParts] = []
            var findings = PolicyReport.Findings()
            for result in results {
                guard let (account, outcome) = result.outcomes[policy] else { continue }
                if policy == .default { faults = faults + outcome.faults }
                for item in try await admin.sessions(of: account.userID) {
                    guard let key = item["sessionKey"] as? String, let siteID = item["siteId"] as? String,
                        let checkInText = item["checkInAt"] as? String, let checkIn = try? RFC3339.parse(checkInText)
                    else {
                        throw Failure(
                            description: "a session of \(account.userID) is not what the contract describes: \(item)")
                    }
                    let checkOut = (item["checkOutAt"] as? String).flatMap { try? RFC3339.parse($0) }
                    let inAt = checkIn.timeIntervalSince(epoch)
                    sessions.append(
                        RecordedSession(
                            employee: result.employee, site: siteNames[siteID] ?? SiteID(siteID), checkIn: inAt,
                            checkOut: checkOut.map { $0.timeIntervalSince(epoch) },
                            checkInDecidedAt: outcome.checkInDecidedAt[SessionKey(key)] ?? inAt,
                            rule: outcome.checkInRule[SessionKey(key)]))
                }
                recorded += outcome.recorded.count
                for (key, committed) in outcome.recorded {
                    guard let accepted = outcome.accepted[key] else { continue }
                    delivered += 1
                    maxDelay = max(maxDelay, accepted - committed)
                }
                ranging.append(Double(outcome.rangingSeconds) / Double(options.days))
                wakeups.append(Double(outcome.wakeups) / Double(options.days))
                bytes.append(Double(outcome.bytes) / Double(options.days))
                awake.append(outcome.usage.awakeSeconds / Double(options.days))
                location.append(outcome.usage.backgroundLocationSeconds / Double(options.days))
                energy.append(options.world.energy.perDay(outcome.usage, days: Double(options.days)))
                findings.cutBySuspension += outcome.cutBySuspension
            }
            details.sessions[policy.rawValue] = sessions
            let score = PresenceScore(truth: truth, sessions: sessions, horizon: horizon)
            let delivery = PolicyReport.Delivery(
                recorded: recorded, delivered: delivered, lost: recorded - delivered,
                duplicates: duplicateSessions(sessions), maxDelaySeconds: maxDelay)
            let device = PolicyReport.Device(
                rangingSecondsPerDay: MedianAndP95(ranging), wakeupsPerDay: MedianAndP95(wakeups),
                bytesPerDay: MedianAndP95(bytes),
                awakeSecondsPerDay: MedianAndP95(awake), backgroundLocationSecondsPerDay: MedianAndP95(location))
            let byEmployee = Dictionary(uniqueKeysWithValues: results.map { ($0.employee, $0) })
            for presence in score.missed {
                guard let result = byEmployee[presence.employee] else { continue }
                // A force-quit silences an app, not the offline policy's record of the radio.
                let cause = MissedCause.of(
                    presence, access: result.access, forceQuits: policy.isOffline ? [] : result.forceQuits,
                    sessions: sessions, horizon: horizon)
                findings.missedByCause[cause, default: 0] += 1
                // The same stays for every policy: Always access, no force-quit within reach.
                if result.access == .always && !MissedCause.forceQuitReaches(presence, forceQuits: result.forceQuits) {
                    findings.missedAlwaysNotForceQuit += 1
                }
            }
            findings.decisionLatenciesAlways = results.filter { $0.access == .always }.flatMap {
                score.decisionLatenciesByEmployee[$0.employee] ?? []
            }
            policies[policy.rawValue] = PolicyReport(
                score: score, employeeDays: employeeDays, delivery: delivery, device: policy.isOffline ? nil : device,
                energy: policy.isOffline
                    ? nil : .init(perPhoneDay: energy, batteryMilliampHours: options.world.energy.batteryMilliampHours),
                findings: findings, offline: policy.isOffline)
        }
        var report = SimulationReport(
            seed: options.seed, employees: options.employees, days: options.days, employeeDays: employeeDays,
            wallSeconds: Date().timeIntervalSince(started), transport: transport, policies: policies)
        report.faults = options.policies.contains(.default) ? faults : nil
        report.details = details
        return report
    }

    /// Sessions that record a stay another session of the same person at the same site already
    /// covers (overlapping in time): what a duplicate event on the server looks like to an admin.
    static func duplicateSessions(_ sessions: [RecordedSession]) -> Int {
        struct Key: Hashable {
            var employee: UserID
            var site: SiteID
        }
        var duplicates = 0
        for (_, own) in Dictionary(grouping: sessions, by: { Key(employee: $0.employee, site: $0.site) }) {
            let sorted = own.sorted { $0.checkIn < $1.checkIn }
            var latestEnd = -Double.infinity
            for session in sorted {
                if session.checkIn < latestEnd { duplicates += 1 }
                latestEnd = max(latestEnd, session.checkOut ?? .infinity)
            }
        }
        return duplicates
    }
}
