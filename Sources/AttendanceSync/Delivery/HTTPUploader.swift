import AttendanceModels
import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Delivers to the server over HTTP with the client generated from openapi.yaml, on URLSession
/// (Linux and iOS alike).
///
/// Every POST carries `Idempotency-Key` and a bearer token. It sends batches to
/// `POST /v1/attendance/events` while the server offers it (a 404 or 405 there means it does not;
/// it then falls back to the single endpoints for the rest of its life).
public final class HTTPUploader: Uploader, Sendable {
    public struct Settings: Sendable {
        public var baseURL: URL
        public var deviceToken: String?
        /// Per request (4 s on the phone: docs/SYNC.md).
        public var timeoutSeconds: Double
        public var platform: String
        public var appVersion: String?
        /// The server's site ids by beacon, from remote config, sent as `siteId` when known.
        public var siteIDs: [SiteBeacon: SiteID]
        /// Counts the bytes of every exchange (the data-use figure of diagnostics and the simulator).
        public var traffic: TrafficMeter?

        /// What the device says about itself beside each event.
        var eventContext: EventContract.Context {
            EventContract.Context(platform: platform, appVersion: appVersion, siteIDs: siteIDs)
        }

        public init(
            baseURL: URL, deviceToken: String? = nil, timeoutSeconds: Double = 4,
            platform: String = HTTPUploader.currentPlatform,
            appVersion: String? = nil, siteIDs: [SiteBeacon: SiteID] = [:], traffic: TrafficMeter? = nil
        ) {
            self.baseURL = baseURL
            self.deviceToken = deviceToken
            self.timeoutSeconds = timeoutSeconds
            self.platform = platform
            self.appVersion = appVersion
            self.siteIDs = siteIDs
            self.traffic = traffic
        }
    }

    public static var currentPlatform: String {
        #if os(iOS)
            "ios"
        #elseif os(macOS)
            "macos"
        #else
            "linux"
        #endif
    }

    public let settings: Settings
    /// The phone's clock: the `Date` header of each request, and the time a `Retry-After` counts from.
    private let clock: any AttendanceClock
    private let client: Client
    private let batchSupport = Locked<Bool?>(nil)

    public convenience init(settings: Settings, clock: any AttendanceClock, session: URLSession? = nil) {
        let urlSession = session ?? Self.ephemeralSession(timeoutSeconds: settings.timeoutSeconds)
        self.init(
            settings: settings, clock: clock, transport: URLSessionTransport(configuration: .init(session: urlSession)))
    }

    /// The same client over another transport (the simulator's in-process one).
    public init(settings: Settings, clock: any AttendanceClock, transport: any ClientTransport) {
        self.settings = settings
        self.clock = clock
        let counters = settings.traffic.map { [TrafficCounter(meter: $0)] } ?? []
        let headers = DeviceHeaders(token: settings.deviceToken, clock: clock)
        client = Client(
            serverURL: Self.serverURL(settings.baseURL), configuration: ContractCoding.configuration,
            transport: transport, middlewares: [headers, ResponseRecorder()] + counters)
    }

    /// A session without caches or cookies whose requests give up after `timeoutSeconds`.
    static func ephemeralSession(timeoutSeconds: Double) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        return URLSession(configuration: configuration)
    }

    /// The base URL without trailing slashes: the generated client appends `/v1/...`, and
    /// `https://host/` would otherwise become `https://host//v1/...`.
    public static func serverURL(_ url: URL) -> URL {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text) ?? url
    }

    /// Whether the server was found to offer the batch endpoint (nil: not asked yet).
    public var serverOffersBatch: Bool? { batchSupport.value }

    public func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
        guard !entries.isEmpty else { return [:] }
        if batchSupport.value != false, let outcomes = await uploadBatch(entries) { return outcomes }
        return await uploadOneByOne(entries)
    }

    // MARK: - Batch

    /// The items of `POST /v1/attendance/events` for these entries, and the batch's own
    /// idempotency key (derived from the items' keys, so a resend of the same batch reuses it).
    static func batch(
        for entries: [OutboxEntry], settings: Settings
    ) -> (idempotencyKey: String, body: Components.Schemas.EventBatchRequest) {
        let context = settings.eventContext
        let items = entries.map { EventContract.batchItem($0.event, context: context) }
        let key = "batch-" + SHA256.hex(items.map(\.idempotencyKey).joined(separator: ",")).prefix(40)
        return (String(key), .init(events: items))
    }

    /// `nil` when the server does not offer the batch endpoint.
    private func uploadBatch(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome]? {
        let (key, body) = Self.batch(for: entries, settings: settings)
        let answer = await exchange {
            try await client.submitEvents(headers: .init(idempotencyKey: key), body: .json(body))
        }
        switch answer {
        case .failure(let reason):
            return Dictionary(
                uniqueKeysWithValues: entries.map {
                    ($0.id, .retry(reason: reason, transport: true, retryAfterSeconds: nil))
                })
        case .answered(let raw, let output):
            if raw.status == 404 || raw.status == 405 {
                batchSupport.value = false
                return nil
            }
            batchSupport.value = true
            guard (200..<300).contains(raw.status) else {
                // The whole batch was answered at once (auth, overload, …): each item shares it.
                let outcome = ResponseClassifier.classify(
                    status: raw.status, retryAfter: raw.retryAfter, body: raw.body, now: clock.now())
                return Dictionary(uniqueKeysWithValues: entries.map { ($0.id, outcome) })
            }
            guard case .ok(let ok)? = output, case .json(let response) = ok.body else {
                let reason = "the batch answer (HTTP \(raw.status)) was not a results document"
                return Dictionary(
                    uniqueKeysWithValues: entries.map {
                        ($0.id, .retry(reason: reason, transport: false, retryAfterSeconds: nil))
                    })
            }
            return Self.outcomes(for: response, entries: entries, now: clock.now())
        }
    }

    // MARK: - For transports other than the generated client (iOS's background URLSession)

    /// The body and `Idempotency-Key` of `POST /v1/attendance/events` for these entries.
    public static func batchRequest(for entries: [OutboxEntry], settings: Settings) throws -> (
        idempotencyKey: String, body: Data
    ) {
        let (key, body) = batch(for: entries, settings: settings)
        return (key, try ContractCoding.encode(body))
    }

    /// What became of each entry, from the raw answer to a batch request: per-item results on a
    /// 2xx, the shared status otherwise (the same classification as this uploader's).
    public static func outcomes(status: Int, retryAfter: String?, body: Data, entries: [OutboxEntry], now: Date)
        -> [Int64: DeliveryOutcome]
    {
        guard (200..<300).contains(status) else {
            let outcome = ResponseClassifier.classify(status: status, retryAfter: retryAfter, body: body, now: now)
            return Dictionary(uniqueKeysWithValues: entries.map { ($0.id, outcome) })
        }
        guard let response = try? ContractCoding.decode(Components.Schemas.EventBatchResponse.self, from: body) else {
            let reason = "the batch answer (HTTP \(status)) was not a results document"
            return Dictionary(
                uniqueKeysWithValues: entries.map {
                    ($0.id, .retry(reason: reason, transport: false, retryAfterSeconds: nil))
                })
        }
        return outcomes(for: response, entries: entries, now: now)
    }

    /// What became of each entry, from the batch endpoint's per-item results and receipts.
    static func outcomes(
        for response: Components.Schemas.EventBatchResponse, entries: [OutboxEntry], now: Date
    ) -> [Int64: DeliveryOutcome] {
        let byKey = Dictionary(
            response.results.map { ($0.idempotencyKey, $0) }, uniquingKeysWith: { first, _ in first })
        let receipts = Dictionary(
            (response.receipts ?? []).map { ($0.idempotencyKey, $0.receipt) }, uniquingKeysWith: { first, _ in first })
        var outcomes: [Int64: DeliveryOutcome] = [:]
        for entry in entries {
            guard let result = byKey[entry.idempotencyKey] else {
                outcomes[entry.id] = .retry(
                    reason: "the batch answer had no result for this event", transport: false, retryAfterSeconds: nil)
                continue
            }
            let problem = result.problem.flatMap { try? ContractCoding.encode($0) } ?? Data()
            var outcome = ResponseClassifier.classify(status: result.status, retryAfter: nil, body: problem, now: now)
            if case .delivered(let status, _) = outcome, let receipt = receipts[entry.idempotencyKey] {
                outcome = .delivered(status: status, receipt: EventContract.receipt(receipt))
            }
            outcomes[entry.id] = outcome
        }
        return outcomes
    }

    // MARK: - One by one

    private func uploadOneByOne(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
        var outcomes: [Int64: DeliveryOutcome] = [:]
        var stoppedBy: DeliveryOutcome?
        for entry in entries {
            if let stoppedBy {
                // FIFO: once one fails for a reason that will recur, the rest wait with it.
                outcomes[entry.id] = stoppedBy
                continue
            }
            let outcome: DeliveryOutcome
            switch await sendSingle(entry) {
            case .failure(let reason): outcome = .retry(reason: reason, transport: true, retryAfterSeconds: nil)
            case .answered(let raw, _):
                outcome = ResponseClassifier.classify(
                    status: raw.status, retryAfter: raw.retryAfter, body: raw.body, now: clock.now())
            }
            outcomes[entry.id] = outcome
            if case .retry = outcome { stoppedBy = outcome }
        }
        return outcomes
    }

    private func sendSingle(_ entry: OutboxEntry) async -> Exchange<Void> {
        let event = entry.event
        let key = entry.idempotencyKey
        switch event.kind {
        case .checkIn:
            let body = EventContract.checkIn(event, context: settings.eventContext)
            return await exchange {
                _ = try await client.checkIn(headers: .init(idempotencyKey: key), body: .json(body))
            }
        case .checkOut:
            let body = EventContract.checkOut(event)
            return await exchange {
                _ = try await client.checkOut(headers: .init(idempotencyKey: key), body: .json(body))
            }
        case .heartbeat:
            let body = EventContract.heartbeat(event)
            return await exchange {
                _ = try await client.heartbeat(headers: .init(idempotencyKey: key), body: .json(body))
            }
        }
    }

    private func exchange<Output: Sendable>(_ call: () async throws -> Output) async -> Exchange<Output> {
        await Exchange.run(timeoutSeconds: settings.timeoutSeconds, call)
    }
}
