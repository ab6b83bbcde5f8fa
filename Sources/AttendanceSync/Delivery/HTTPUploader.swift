import AttendanceModels
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delivers to the server over HTTP with URLSession (Linux and iOS alike).
///
/// Every POST carries `Idempotency-Key` and a bearer token. It sends batches to
/// `POST /v1/attendance/events` while the server offers it (a 404 or 405 there means it does not;
/// it then falls back to the single endpoints for the rest of its life).
public final class HTTPUploader: Uploader, Sendable {
    public struct Settings: Sendable {
        public var baseURL: URL
        public var deviceToken: String?
        /// Per request (DESIGN §4.5: 4 s).
        public var timeoutSeconds: Double
        public var platform: String
        public var appVersion: String?
        /// The server's site ids by beacon, from remote config, sent as `siteId` when known.
        public var siteIDs: [SiteBeacon: SiteID]

        public init(baseURL: URL, deviceToken: String? = nil, timeoutSeconds: Double = 4, platform: String = HTTPUploader.currentPlatform,
                    appVersion: String? = nil, siteIDs: [SiteBeacon: SiteID] = [:]) {
            self.baseURL = baseURL
            self.deviceToken = deviceToken
            self.timeoutSeconds = timeoutSeconds
            self.platform = platform
            self.appVersion = appVersion
            self.siteIDs = siteIDs
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
    private let session: URLSession
    private let batchSupport = Locked<Bool?>(nil)

    public init(settings: Settings, session: URLSession? = nil) {
        self.settings = settings
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = settings.timeoutSeconds
            configuration.timeoutIntervalForResource = settings.timeoutSeconds
            self.session = URLSession(configuration: configuration)
        }
    }

    /// Whether the server was found to offer the batch endpoint (nil: not asked yet).
    public var serverOffersBatch: Bool? { batchSupport.value }

    public func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
        guard !entries.isEmpty else { return [:] }
        if batchSupport.value != false, let outcomes = await uploadBatch(entries) { return outcomes }
        return await uploadOneByOne(entries)
    }

    // MARK: - Batch

    /// The body of `POST /v1/attendance/events` for these entries, and the batch's own
    /// idempotency key (derived from the items' keys, so a resend of the same batch reuses it).
    public static func batchRequest(for entries: [OutboxEntry], settings: Settings) throws -> (idempotencyKey: String, body: Data) {
        let items = entries.map { $0.event.batchItem(platform: settings.platform, appVersion: settings.appVersion, siteID: settings.siteIDs[$0.event.site]) }
        let key = "batch-" + SHA256.hex(items.map(\.idempotencyKey).joined(separator: ",")).prefix(40)
        return (String(key), try CanonicalJSON.encoder.encode(EventBatchRequest(events: items)))
    }

    /// What became of each entry, from a 2xx answer of the batch endpoint.
    public static func outcomes(forBatchAnswer data: Data, status: Int, entries: [OutboxEntry]) -> [Int64: DeliveryOutcome] {
        guard let response = try? JSONDecoder().decode(EventBatchResponse.self, from: data) else {
            let reason = "the batch answer (HTTP \(status)) was not a results document"
            return Dictionary(uniqueKeysWithValues: entries.map { ($0.id, .retry(reason: reason, transport: false, retryAfterSeconds: nil)) })
        }
        let byKey = Dictionary(response.results.map { ($0.idempotencyKey, $0) }, uniquingKeysWith: { first, _ in first })
        var outcomes: [Int64: DeliveryOutcome] = [:]
        for entry in entries {
            guard let result = byKey[entry.idempotencyKey] else {
                outcomes[entry.id] = .retry(reason: "the batch answer had no result for this event", transport: false, retryAfterSeconds: nil)
                continue
            }
            let problem = result.problem.flatMap { try? CanonicalJSON.encoder.encode($0) } ?? Data()
            outcomes[entry.id] = ResponseClassifier.classify(status: result.status, retryAfter: nil, body: problem, now: Date())
        }
        return outcomes
    }

    /// `nil` when the server does not offer the batch endpoint.
    private func uploadBatch(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome]? {
        let request: (idempotencyKey: String, body: Data)
        do { request = try Self.batchRequest(for: entries, settings: settings) } catch {
            return Dictionary(uniqueKeysWithValues: entries.map { ($0.id, .rejected(status: 0, detail: "could not encode the event: \(error)")) })
        }
        switch await post(path: "v1/attendance/events", body: request.body, idempotencyKey: request.idempotencyKey) {
        case .failure(let reason):
            return Dictionary(uniqueKeysWithValues: entries.map { ($0.id, .retry(reason: reason, transport: true, retryAfterSeconds: nil)) })
        case .success(let status, let retryAfter, let data):
            if status == 404 || status == 405 {
                batchSupport.value = false
                return nil
            }
            batchSupport.value = true
            guard (200..<300).contains(status) else {
                // The whole batch was answered at once (auth, overload, …): each item shares it.
                let outcome = ResponseClassifier.classify(status: status, retryAfter: retryAfter, body: data, now: Date())
                return Dictionary(uniqueKeysWithValues: entries.map { ($0.id, outcome) })
            }
            return Self.outcomes(forBatchAnswer: data, status: status, entries: entries)
        }
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
            let item = entry.event.batchItem(platform: settings.platform, appVersion: settings.appVersion, siteID: settings.siteIDs[entry.event.site])
            let path: String
            let body: Data?
            switch item.type {
            case .checkIn: path = "v1/attendance/check-in"; body = try? CanonicalJSON.encoder.encode(item.checkIn)
            case .checkOut: path = "v1/attendance/check-out"; body = try? CanonicalJSON.encoder.encode(item.checkOut)
            case .heartbeat: path = "v1/attendance/heartbeat"; body = try? CanonicalJSON.encoder.encode(item.heartbeat)
            }
            guard let body else {
                outcomes[entry.id] = .rejected(status: 0, detail: "could not encode the event")
                continue
            }
            let outcome: DeliveryOutcome
            switch await post(path: path, body: body, idempotencyKey: entry.idempotencyKey) {
            case .failure(let reason): outcome = .retry(reason: reason, transport: true, retryAfterSeconds: nil)
            case .success(let status, let retryAfter, let data):
                outcome = ResponseClassifier.classify(status: status, retryAfter: retryAfter, body: data, now: Date())
            }
            outcomes[entry.id] = outcome
            if case .retry = outcome { stoppedBy = outcome }
        }
        return outcomes
    }

    // MARK: - HTTP

    private enum Answer {
        case success(status: Int, retryAfter: String?, body: Data)
        case failure(String)
    }

    private func post(path: String, body: Data, idempotencyKey: String) async -> Answer {
        var request = URLRequest(url: settings.baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.timeoutInterval = settings.timeoutSeconds
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json, application/problem+json", forHTTPHeaderField: "Accept")
        request.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        if let token = settings.deviceToken { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return .failure("not an HTTP response") }
            return .success(status: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After"), body: data)
        } catch let error as URLError {
            return .failure(error.code == .timedOut ? "timed out after \(settings.timeoutSeconds) s" : "network error: \(error.localizedDescription) (\(error.code.rawValue))")
        } catch {
            return .failure("network error: \(error)")
        }
    }
}
