import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// What `AuthService` reads and writes: the repository protocols it needs, no more.
public typealias AuthServiceStorage = AttendanceRepository & AuthRepository & AccountRepository & LedgerRepository

/// Bearer tokens to principals, first-start admin token, and device enrollment.
public struct AuthService: Sendable {
    public let repository: any AuthServiceStorage
    private let environment: ServerEnvironment
    private let credentials: CredentialCache

    /// `watch`: what lets checked tokens be cached (nil: every request looks its token up).
    public init(
        repository: any AuthServiceStorage, watch: DirectoryWatch? = nil,
        environment: ServerEnvironment
    ) {
        self.repository = repository
        self.environment = environment
        self.credentials = CredentialCache(watch: watch)
    }

    /// At start: with `configured` (from `ATTENDANCE_ADMIN_TOKEN`), that value is the admin token,
    /// replacing any stored one (so rotating the variable rotates the token). Without it, a
    /// database's first start installs a new random token and returns it, to be printed once;
    /// later starts return nil and keep the stored one.
    public func installAdminToken(configured: String?) async throws -> String? {
        if let configured {
            guard configured.count >= 16 else {
                throw DomainError.field(
                    "ATTENDANCE_ADMIN_TOKEN", "\(configured.count) characters long", expected: "at least 16 characters")
            }
            let hash = Tokens.hash(configured)
            if try await !repository.isAdminToken(hash: hash) {
                try await repository.replaceAdminTokens(hash: hash, now: environment.now())
                try await repository.appendLedger(
                    LedgerEvent.admin(
                        .adminTokenReplaced, target: "ATTENDANCE_ADMIN_TOKEN", changes: [:], actor: .server,
                        now: environment.now()))
            }
            return nil
        }
        let token = environment.newToken()
        guard try await repository.installAdminToken(hash: Tokens.hash(token), now: environment.now()) else {
            return nil
        }
        try await repository.appendLedger(
            LedgerEvent.admin(
                .adminTokenInstalled, target: "first start", changes: [:], actor: .server, now: environment.now()))
        return token
    }

    /// The principal for an `Authorization` header value, or a 401 problem that says why.
    public func authenticate(authorization: String?) async throws -> Principal {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else {
            throw DomainError(.unauthenticated, "Unauthorized", "an 'Authorization: Bearer <token>' header is required")
        }
        let token = String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        let hash = Tokens.hash(token)
        let now = environment.now()
        return try await credentials.principal(tokenHash: hash, now: now) {
            try await lookUp(token: token, hash: hash, now: now)
        }
    }

    /// Whom the token stands for, from the database, and when it was last seen there.
    private func lookUp(token: String, hash: String, now: Date) async throws -> (Principal, seenAt: Date) {
        if let staff = try await APITokenService(repository: repository, environment: environment).identity(
            token: token)
        {
            return (.staff(staff), now)
        }
        // Devices first: they make nearly all the requests.
        guard let device = try await repository.device(tokenHash: hash, now: now) else {
            if try await repository.isAdminToken(hash: hash) { return (.admin, now) }
            throw DomainError(
                .unauthenticated, "Unauthorized", "the bearer token is not a valid admin, API or device token")
        }
        if let revoked = device.revokedAt {
            throw DomainError(
                .unauthenticated, "Device revoked",
                "device '\(device.id)' was revoked at \(RFC3339.format(revoked)); enroll it again with a new code")
        }
        return (.device(device.id, user: device.userId), device.lastSeenAt ?? now)
    }

    /// Issues a one-time code for an employee; the code itself is returned once and stored hashed.
    /// `idempotencyKey`: a retry with it issues nothing new and answers the same code, derived from
    /// the key and a server secret (so it is never stored in plain), with its first expiry; 409
    /// when that code was used or replaced since.
    public func issueEnrollmentCode(
        for user: UserID, validForSeconds: Double = 86_400, actor: LedgerActor = .adminToken,
        idempotencyKey: String? = nil
    ) async throws -> (code: String, expiresAt: Date) {
        guard (60...30 * 86_400).contains(validForSeconds) else {
            throw DomainError.field(
                "expiresInSeconds", String(Int(validForSeconds)), expected: "from 60 to 2592000 seconds")
        }
        guard let employee = try await repository.employee(id: user) else {
            throw DomainError(.notFound, "Not found", "no employee with id '\(user)'")
        }
        guard employee.isActive else {
            throw DomainError.field(
                "userId", user.rawValue, expected: "an active employee (this one was deactivated)", kind: .unprocessable
            )
        }
        var code = environment.newEnrollmentCode()
        if let retried = try await retriedCode(idempotencyKey, actor: actor) {
            code = retried
            if let earlier = try await earlierCode(code, for: user) { return (code, earlier) }
        }
        let expiresAt = environment.now().addingTimeInterval(validForSeconds)
        let audit = LedgerEvent.admin(
            .enrollmentCodeIssued, target: user.rawValue, userId: user,
            changes: ["expiresAt": LedgerChange(before: nil, after: RFC3339.format(expiresAt))], actor: actor,
            now: environment.now())
        do {
            try await repository.createEnrollmentCode(
                hash: Tokens.hash(Tokens.normalizeCode(code)), userId: user, expiresAt: expiresAt,
                now: environment.now(), audit: audit)
        } catch let error as RepositoryError where idempotencyKey != nil && error.kind == .conflict {
            // A retry that ran beside the first: the first one's code.
            if let earlier = try await earlierCode(code, for: user) { return (code, earlier) }
            throw error
        }
        return (code, expiresAt)
    }

    /// The code a retry with `key` gets: HMAC-SHA256 of the caller and the key under a secret the
    /// servers on this database share; nil without a key.
    private func retriedCode(_ key: String?, actor: LedgerActor) async throws -> String? {
        guard let key else { return nil }
        try InputRules.identifier("Idempotency-Key", key)
        let secret = try await repository.sharedSecret(
            name: "enrollment-code-retries", candidate: environment.newToken())
        return ServerEnvironment.enrollmentCode { block in
            HMACSHA256.authenticationCode(
                key: Array(secret.utf8), message: Array("\(actor.rawValue)\n\(key)\n\(block)".utf8))
        }
    }

    /// The expiry of the code issued before under the same key, when it still works; a conflict
    /// naming why when it was used, replaced or issued for someone else.
    private func earlierCode(_ code: String, for user: UserID) async throws -> Date? {
        guard let earlier = try await repository.enrollmentCode(hash: Tokens.hash(Tokens.normalizeCode(code))) else {
            return nil
        }
        guard earlier.userId == user else {
            throw DomainError(
                .conflict, "Idempotency-Key reused", "this Idempotency-Key issued a code for another employee")
        }
        guard earlier.usedAt == nil, earlier.expiresAt > environment.now() else {
            throw DomainError(
                .conflict, "Code used or replaced",
                "the code issued under this Idempotency-Key was used, replaced or expired; issue one with a new key")
        }
        return earlier.expiresAt
    }

    /// Redeems a code for a new device and its token (shown once).
    public func enroll(code: String, platform: String, deviceName: String?, appVersion: String? = nil) async throws -> (
        device: DeviceRecord, token: String
    ) {
        try InputRules.text("code", code, maxLength: 64, allowEmpty: false)
        try InputRules.text("platform", platform, maxLength: 32)
        if let deviceName { try InputRules.text("deviceName", deviceName, maxLength: InputRules.maxNameLength) }
        if let appVersion { try InputRules.text("appVersion", appVersion, maxLength: 64) }
        guard !platform.isEmpty else {
            throw DomainError.field("platform", platform, expected: "the device platform, e.g. ios")
        }
        switch try await repository.redeemEnrollmentCode(
            hash: Tokens.hash(Tokens.normalizeCode(code)), now: environment.now())
        {
        case .unknown:
            throw DomainError.field(
                "code", code, expected: "an enrollment code issued by an administrator", kind: .unprocessable)
        case .alreadyUsed:
            throw DomainError(
                .gone, "Code already used", "the enrollment code '\(code)' was already used; ask for a new one")
        case .expired(let at):
            throw DomainError(
                .gone, "Code expired",
                "the enrollment code '\(code)' expired at \(RFC3339.format(at)); ask for a new one"
            )
        case .redeemed(let user):
            let token = environment.newToken()
            let device = DeviceRecord(
                id: environment.newId("dev-", length: 12, lowercased: false), userId: user,
                platform: platform,
                deviceName: deviceName, enrolledAt: environment.now(), lastSeenAt: nil, revokedAt: nil,
                appVersion: appVersion)
            let audit = LedgerEvent.admin(
                .deviceEnrolled, target: device.id.rawValue, userId: user,
                changes: ["platform": LedgerChange(before: nil, after: platform)], actor: .device(device.id),
                now: environment.now())
            try await repository.createDevice(device, tokenHash: Tokens.hash(token), audit: audit)
            return (device, token)
        }
    }
}
