import AttendanceModels
import AttendanceSync
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The network between one phone and the real server, in virtual time. Each upload takes a
/// latency from the world's range; while the phone is offline or the server is restarting it
/// fails at once (nothing is sent); otherwise a request fails with the world's probability, half
/// of the time before it reaches the server, half of the time after the server processed it (the
/// answer is lost). Everything else goes to the real server over HTTP.
public final class SimulatedNetwork: Uploader, Sendable {
    /// What the network did, for the report's fault counts.
    public struct Counters: Hashable, Sendable {
        /// Every request the phone made: uploads and the app's other calls.
        public var requests = 0
        public var offline = 0
        public var serverRestarting = 0
        public var failedBeforeServer = 0
        public var answersLost = 0
        public var crashesInFlight = 0
    }

    struct State {
        var random: SplitMix64
        var crashOnNextUpload = false
        var crashed = false
        /// Idempotency key → when the server first accepted it (seconds of the run).
        var accepted: [String: Double] = [:]
        var counters = Counters()
        /// After the simulated days: the network is back for good and nothing fails.
        var settled = false
    }

    private let inner: any Uploader
    /// The bytes of the exchanges with the server, when the network built the real uploader.
    let traffic: TrafficMeter?
    private let clock: SimulatedClock
    private let epoch: Date
    private let plan: PhonePlan
    private let serverRestarts: [Range<Double>]
    private let network: NetworkSpec
    private let state: Locked<State>

    public init(
        inner: any Uploader, traffic: TrafficMeter? = nil, clock: SimulatedClock, epoch: Date, plan: PhonePlan,
        serverRestarts: [Range<Double>],
        network: NetworkSpec, seed: UInt64
    ) {
        self.inner = inner
        self.traffic = traffic
        self.clock = clock
        self.epoch = epoch
        self.plan = plan
        self.serverRestarts = serverRestarts
        self.network = network
        state = Locked(State(random: SplitMix64(seed: seed)))
    }

    /// The real `HTTPUploader` to the server behind `link`, as `account`, behind this network, its
    /// bytes counted. Over HTTP it is the app's own URLSession transport; its timeout is the host's,
    /// not the world's: network faults are drawn above, so a request must never fail because the
    /// machine was busy (with the app's 4 s, a 200 × 5 crash/offline run on a loaded machine gave a
    /// different report for the same seed). In process, the same client hands each request to the
    /// server's router.
    public convenience init(
        link: any ServerLink, account: PhoneAccount, siteIDs: [SiteBeacon: SiteID], platform: String,
        appVersion: String,
        clock: SimulatedClock, epoch: Date, plan: PhonePlan, serverRestarts: [Range<Double>], network: NetworkSpec,
        seed: UInt64
    ) {
        let traffic = TrafficMeter()
        let settings = HTTPUploader.Settings(
            baseURL: link.baseURL, deviceToken: account.token, timeoutSeconds: Self.hostTimeoutSeconds,
            platform: platform, appVersion: appVersion, siteIDs: siteIDs, traffic: traffic)
        // The requests' Date header is the machine's: the in-process server checks it with its live clock.
        let http =
            link is HTTPLink
            ? HTTPUploader(settings: settings, clock: SystemClock())
            : HTTPUploader(settings: settings, clock: SystemClock(), transport: LinkTransport(link: link))
        self.init(
            inner: http, traffic: traffic, clock: clock, epoch: epoch, plan: plan, serverRestarts: serverRestarts,
            network: network, seed: seed)
    }

    static let hostTimeoutSeconds: Double = 600

    /// Books what the network saw into a phone's outcome: acceptances, bytes and network faults.
    func book(into outcome: inout PhoneOutcome) {
        let counters = self.counters
        outcome.accepted = accepted
        outcome.bytes = traffic?.total ?? 0
        outcome.faults.networkOutages = plan.outages.count
        outcome.faults.uploadsWhileOffline = counters.offline
        outcome.faults.uploadsDuringServerRestart = counters.serverRestarting
        outcome.faults.requestsFailed = counters.failedBeforeServer
        outcome.faults.answersLost = counters.answersLost
    }

    public var counters: Counters { state.value.counters }
    /// The bytes exchanged so far.
    public var bytesSoFar: Int { traffic?.total ?? 0 }
    public var accepted: [String: Double] { state.value.accepted }

    /// The app dies during its next upload, after the request left.
    public func crashDuringNextUpload() { state.withLock { $0.crashOnNextUpload = true } }

    /// Whether an upload crashed the app since the last call (and clears it).
    public func takeCrash() -> Bool {
        state.withLock { state in
            defer { state.crashed = false }
            return state.crashed
        }
    }

    public func settle() { state.withLock { $0.settled = true } }

    /// The app's calls other than uploads, over `link`: they fail at once while offline, and
    /// count as requests (their bytes are counted by the client's `traffic`).
    func otherCalls(over link: any ServerLink) -> any ClientTransport {
        NetworkTransport(link: link, admit: { [self] in admitOtherCall() })
    }

    /// Whether a call other than an upload goes out now (the phone is online); one that does
    /// is counted as a request.
    private func admitOtherCall() -> Bool {
        guard isOnline(at: clock.now().timeIntervalSince(epoch)) else { return false }
        state.withLock { $0.counters.requests += 1 }
        return true
    }

    public func isOnline(at time: Double) -> Bool { state.value.settled || plan.isOnline(at: time) }

    public func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
        let start = clock.now().timeIntervalSince(epoch)
        enum Fate {
            case offline, restarting, failed
            case answerLost(crash: Bool)
            case delivered
        }
        let fate: Fate = state.withLock { state in
            state.counters.requests += 1
            let latency = Double.random(in: network.latencyMillisecondsRange, using: &state.random) / 1_000
            clock.set(epoch.addingTimeInterval(start + latency))
            if state.settled { return state.crashOnNextUpload ? .answerLost(crash: true) : .delivered }
            if !plan.isOnline(at: start) {
                state.counters.offline += 1
                return .offline
            }
            if serverRestarts.contains(where: { $0.contains(start) }) {
                state.counters.serverRestarting += 1
                return .restarting
            }
            let draw = Double.random(in: 0..<1, using: &state.random)
            if state.crashOnNextUpload { return .answerLost(crash: true) }
            if draw < network.failureProbability / 2 {
                state.counters.failedBeforeServer += 1
                return .failed
            }
            if draw < network.failureProbability { return .answerLost(crash: false) }
            return .delivered
        }
        func all(_ reason: String) -> [Int64: DeliveryOutcome] {
            Dictionary(
                uniqueKeysWithValues: entries.map {
                    ($0.id, .retry(reason: reason, transport: true, retryAfterSeconds: nil))
                })
        }
        switch fate {
        case .offline: return all("network error: the phone is offline")
        case .restarting: return all("network error: connection refused (the server is restarting)")
        case .failed: return all("timed out after 4 s")
        case .answerLost(let crash):
            let outcomes = await inner.upload(entries)
            record(outcomes, entries, at: start)
            state.withLock { state in
                if crash {
                    state.crashOnNextUpload = false
                    state.crashed = true
                    state.counters.crashesInFlight += 1
                } else {
                    state.counters.answersLost += 1
                }
            }
            return all(
                crash
                    ? "the app died while the request was on the wire"
                    : "network error: the connection was reset before the answer")
        case .delivered:
            let outcomes = await inner.upload(entries)
            record(outcomes, entries, at: start)
            return outcomes
        }
    }

    private func record(_ outcomes: [Int64: DeliveryOutcome], _ entries: [OutboxEntry], at time: Double) {
        state.withLock { state in
            for entry in entries {
                guard case .delivered? = outcomes[entry.id], state.accepted[entry.idempotencyKey] == nil else {
                    continue
                }
                state.accepted[entry.idempotencyKey] = time
            }
        }
    }
}

/// The app's calls other than uploads (enrollment, configuration, the permission report): the
/// same link to the server, failing at once while the phone is offline.
struct NetworkTransport: ClientTransport {
    let link: any ServerLink
    /// Lets the call out, or not (the phone is offline); the network counts what it lets out.
    let admit: @Sendable () -> Bool

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
        HTTPResponse, HTTPBody?
    ) {
        guard admit() else { throw SimulatedOffline() }
        return try await LinkTransport(link: link).send(request, body: body, baseURL: baseURL, operationID: operationID)
    }
}

/// A call made while the simulated phone is offline.
public struct SimulatedOffline: Error, CustomStringConvertible {
    public var description: String { "network error: the phone is offline (simulated)" }
}

/// The crash the simulator injects into a database write.
public struct SimulatedCrash: Error, CustomStringConvertible {
    public var description: String { "the app was killed in the middle of a database write (simulated)" }
}
