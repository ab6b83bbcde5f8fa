import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// What `RequestService` reads and writes: the repository protocols it needs, no more.
public typealias RequestServiceStorage = AttendanceRepository & RequestRepository

/// Employees ask for corrections from the app; admins approve or reject them. Validated here;
/// `RequestRules` decides, and the repository writes each step with its ledger row.
public struct RequestService: Sendable {
    public let repository: any RequestServiceStorage
    private let environment: ServerEnvironment
    /// Told about the session an approval corrected or added (the console's live presence).
    private let observer: (any SessionObserver)?

    public init(
        repository: any RequestServiceStorage, observer: (any SessionObserver)? = nil,
        environment: ServerEnvironment
    ) {
        self.repository = repository
        self.observer = observer
        self.environment = environment
    }

    public struct Input: Sendable {
        public var sessionKey: String?
        public var siteId: String?
        public var checkInAt: Date?
        public var checkOutAt: Date?
        public var reason: String
        public var evidence: [String: String]

        public init(
            sessionKey: String?, siteId: String?, checkInAt: Date?, checkOutAt: Date?, reason: String,
            evidence: [String: String]
        ) {
            self.sessionKey = sessionKey
            self.siteId = siteId
            self.checkInAt = checkInAt
            self.checkOutAt = checkOutAt
            self.reason = reason
            self.evidence = evidence
        }
    }

    /// Files a request for `user` from `device`: a correction of one of their own sessions, or a
    /// session the phone missed.
    public func file(_ input: Input, user: UserID, device: DeviceID) async throws -> CorrectionRequestRecord {
        try InputRules.text("reason", input.reason, maxLength: InputRules.maxReasonLength, allowEmpty: false)
        guard input.evidence.count <= 10 else {
            throw DomainError.field("evidence", "\(input.evidence.count) entries", expected: "at most 10 entries")
        }
        for (name, value) in input.evidence {
            try InputRules.identifier("evidence", name, maxLength: 64)
            try InputRules.text("evidence.\(name)", value, maxLength: 200)
        }
        if let checkIn = input.checkInAt, let checkOut = input.checkOutAt, checkOut < checkIn {
            throw DomainError.field(
                "checkOutAt", RFC3339.format(checkOut),
                expected: "a time at or after checkInAt (\(RFC3339.format(checkIn)))", kind: .unprocessable)
        }
        let kind: CorrectionRequestRecord.Kind
        var siteId = input.siteId.map { SiteID($0) }
        if let key = input.sessionKey {
            try InputRules.identifier("sessionKey", key)
            guard let session = try await repository.session(key: SessionKey(key)), session.userId == user else {
                throw DomainError(.notFound, "Not found", "no session of yours with key '\(key)'")
            }
            guard input.checkInAt != nil || input.checkOutAt != nil || siteId != nil else {
                throw DomainError.field(
                    "checkInAt", nil, expected: "the corrected check-in, check-out or site of the session",
                    kind: .unprocessable)
            }
            kind = .correction
        } else {
            guard let site = siteId else {
                throw DomainError.field(
                    "siteId", nil, expected: "the site of the missing session", kind: .unprocessable)
            }
            guard input.checkInAt != nil else {
                throw DomainError.field(
                    "checkInAt", nil, expected: "when the missing session began", kind: .unprocessable)
            }
            siteId = site
            kind = .missingSession
        }
        if let site = siteId {
            try InputRules.identifier("siteId", site.rawValue, maxLength: InputRules.maxIdLength)
            guard try await repository.site(id: site) != nil else {
                throw DomainError.field("siteId", site.rawValue, expected: "the id of a site", kind: .unprocessable)
            }
        }
        let request = CorrectionRequestRecord(
            id: environment.newId("req-", length: 12), userId: user, kind: kind,
            sessionKey: input.sessionKey.map { SessionKey($0) }, siteId: siteId, checkInAt: input.checkInAt,
            checkOutAt: input.checkOutAt, reason: input.reason, evidence: input.evidence, createdAt: environment.now())
        try await repository.fileRequest(request, actor: .device(device))
        return request
    }

    /// The requests `scope` may see: a correction is about its session's site (and, when it moves
    /// the session, the new site too); a missing session about the site it names. Filtered by the
    /// storage, by the same rule `visible` states.
    public func list(userId: UserID?, state: CorrectionRequestRecord.State?, scope: SiteScope = .all) async throws
        -> [CorrectionRequestRecord]
    {
        if let userId { try InputRules.identifier("userId", userId.rawValue, maxLength: InputRules.maxIdLength) }
        return try await repository.requests(userId: userId, state: state, sites: Self.sites(scope))
    }

    /// The sites the storage filters requests by (the rule `visible` states); nil: every site.
    private static func sites(_ scope: SiteScope) -> Set<SiteID>? {
        switch scope {
        case .all: nil
        case .only(let sites): sites
        }
    }

    /// A page of the requests `scope` may see, newest first, and where the next page starts (nil
    /// on the last page). The storage filters by the scope's sites, by the rule `visible` states.
    public func page(
        userId: UserID?, state: CorrectionRequestRecord.State?, scope: SiteScope, before: RequestCursor?, limit: Int
    ) async throws -> (items: [CorrectionRequestRecord], next: RequestCursor?) {
        if let userId { try InputRules.identifier("userId", userId.rawValue, maxLength: InputRules.maxIdLength) }
        let found = try await repository.requests(
            userId: userId, state: state, sites: Self.sites(scope), before: before, limit: limit + 1)
        let items = Array(found.prefix(limit))
        return (items, found.count > limit ? items.last.map(RequestCursor.init) : nil)
    }

    func visible(_ request: CorrectionRequestRecord, to scope: SiteScope) async throws -> Bool {
        guard scope != .all else { return true }
        if let key = request.sessionKey, request.kind == .correction {
            guard let session = try await repository.session(key: key) else { return false }
            return scope.permits(session.siteId) && (request.siteId.map(scope.permits) ?? true)
        }
        return request.siteId.map(scope.permits) ?? false
    }

    public func decide(
        id: CorrectionRequestID, approve: Bool, comment: String?, actor: LedgerActor, scope: SiteScope = .all
    ) async throws
        -> CorrectionRequestRecord
    {
        try InputRules.identifier("requestId", id.rawValue, maxLength: InputRules.maxIdLength)
        if scope != .all {
            guard let request = try await repository.request(id: id) else {
                throw DomainError(.notFound, "Not found", "no request with id '\(id)'")
            }
            guard try await visible(request, to: scope) else {
                throw DomainError(
                    .forbidden, "Forbidden", "request '\(id)' is about a site not assigned to this account")
            }
        }
        if let comment {
            try InputRules.text("comment", comment, maxLength: InputRules.maxReasonLength, allowEmpty: approve)
        } else if !approve {
            throw DomainError.field("comment", nil, expected: "why the request is rejected (the employee reads it)")
        }
        switch try await repository.decideRequest(
            id: id, approve: approve, comment: comment, actor: actor, now: environment.now())
        {
        case .decided(let request):
            if let observer, request.state == .approved, let key = request.sessionKey,
                let session = try await repository.session(key: key)
            {
                observer.sessionsChanged([session])
            }
            return request
        case .notFound: throw DomainError(.notFound, "Not found", "no request with id '\(id)'")
        case .alreadyDecided(let request):
            throw DomainError(.conflict, "Conflict", "the request '\(id)' was already \(request.state.rawValue)")
        case .correctionRefused(let outcome):
            _ = try CorrectionService.session(outcome)
            throw DomainError(.conflict, "Conflict", "the request '\(id)' could not be applied")
        }
    }
}
