import AttendanceConsole
import AttendanceExports
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import OpenAPIRuntime

/// The handlers behind the stubs generated from openapi.yaml. Each one unwraps the typed input,
/// calls the HTTP-agnostic service, and wraps the answer; refusals are thrown (`Problem`, or a
/// stored refusal) and `ProblemMiddleware` sends them as problem+json.
struct AttendanceAPI: APIProtocol {
    let repository: any ServerRepository
    /// Where heavy reads go (for the standby's lag in `/metrics`).
    let reads: ReadRoute
    let ingest: IngestService
    let admin: AdminService
    let auth: AuthService
    let corrections: CorrectionService
    let requests: RequestService
    let timesheets: TimesheetService
    let timesheetSettings: TimesheetSettingsService
    let payPeriods: PayPeriodService
    let deviceStates: DeviceStateService
    let metrics: ServerMetrics
    let ledgerHealth: LedgerHealth
    let witnesses: WitnessService
    let receipts: ReceiptService
    /// Nil when the answers carry no receipts (`--receipt-wait 0`).
    let answerReceipts: AnswerReceipts?
    let document: Data

    // MARK: Operations

    func getHealth(_ input: Operations.GetHealth.Input) async throws -> Operations.GetHealth.Output {
        do { try await repository.ping() } catch {
            throw Problem(
                503, "Database unavailable", "the \(repository.backendName) database does not answer: \(error)")
        }
        let database: Components.Schemas.Health.DatabasePayload =
            repository.backendName == "postgresql" ? .postgresql : .sqlite
        // A ledger that failed its check: still serving, and saying so.
        let failure = ledgerHealth.failure
        return .ok(
            .init(
                body: .json(
                    .init(
                        status: failure == nil ? .ok : .degraded, database: database,
                        ledgerProblems: failure?.problems))))
    }

    /// Ready when the database answers and holds every migration this release has: a load balancer
    /// sends no request before that (a server started against a database another one is still
    /// migrating, or one it could not migrate).
    func getReadiness(_ input: Operations.GetReadiness.Input) async throws -> Operations.GetReadiness.Output {
        let pending: [String]
        do { pending = try await repository.pendingMigrations() } catch {
            throw Problem(503, "Not ready", "the \(repository.backendName) database does not answer: \(error)")
        }
        guard pending.isEmpty else {
            throw Problem(
                503, "Not ready", "migrations not applied yet: " + pending.joined(separator: ", "))
        }
        let database: Components.Schemas.Readiness.DatabasePayload =
            repository.backendName == "postgresql" ? .postgresql : .sqlite
        let count = ReleaseSchema.release.count + Migrations.all.count
        return .ok(.init(body: .json(.init(status: .ready, database: database, migrations: count))))
    }

    func getMetrics(_ input: Operations.GetMetrics.Input) async throws -> Operations.GetMetrics.Output {
        // Read at each scrape: one count over the devices, on a table of one row a phone.
        if let counts = try? await deviceStates.silence() {
            metrics.devices(inUse: counts.inUse, silent: counts.silent)
        }
        if reads.hasStandby { metrics.standbyLag(seconds: reads.standbyStaleness()) }
        return .ok(.init(body: .plainText(HTTPBody(metrics.exposition()))))
    }

    func getOpenAPIDocument(_ input: Operations.GetOpenAPIDocument.Input) async throws
        -> Operations.GetOpenAPIDocument.Output
    {
        .ok(.init(body: .yaml(HTTPBody(document))))
    }

    // MARK: Device

    func enrollDevice(_ input: Operations.EnrollDevice.Input) async throws -> Operations.EnrollDevice.Output {
        guard case .json(let request) = input.body else { throw Self.unsupportedBody }
        let (device, token) = try await auth.enroll(
            code: request.code, platform: request.platform, deviceName: request.deviceName,
            appVersion: request.appVersion)
        let config = try await deviceConfig(device: device.id, user: device.userId)
        return .created(
            .init(
                body: .json(
                    .init(
                        deviceId: device.id.rawValue, deviceToken: token, userId: device.userId.rawValue, config: config
                    ))))
    }

    func getDeviceConfig(_ input: Operations.GetDeviceConfig.Input) async throws -> Operations.GetDeviceConfig.Output {
        guard case .device(let device, let user) = try Caller.current() else {
            throw Problem(403, "Forbidden", "the remote configuration is per device; call it with a device token")
        }
        return .ok(.init(body: .json(try await deviceConfig(device: device, user: user))))
    }

    private func deviceConfig(device: DeviceID, user: UserID) async throws -> Components.Schemas.DeviceConfig {
        DeviceConfigMapping.deviceConfig(try await admin.deviceConfig(device: device, user: user))
    }

    // The device's events: the body mapped to a typed request (DeviceRequestMapping), and the
    // answer IngestService rendered and stored returned as its bytes (`StoredAnswerMiddleware`),
    // never re-encoded.

    func checkIn(_ input: Operations.CheckIn.Input) async throws -> Operations.CheckIn.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let reply = try await ingest(
            try DeviceRequestMapping.checkIn(body), key: input.headers.idempotencyKey, date: input.headers.date)
        return try StoredAnswerMiddleware.answer(reply, as: Operations.CheckIn.Output.undocumented)
    }

    func checkOut(_ input: Operations.CheckOut.Input) async throws -> Operations.CheckOut.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let reply = try await ingest(try DeviceRequestMapping.checkOut(body), key: input.headers.idempotencyKey)
        return try StoredAnswerMiddleware.answer(reply, as: Operations.CheckOut.Output.undocumented)
    }

    func heartbeat(_ input: Operations.Heartbeat.Input) async throws -> Operations.Heartbeat.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let reply = try await ingest(try DeviceRequestMapping.heartbeat(body), key: input.headers.idempotencyKey)
        return try StoredAnswerMiddleware.answer(reply, as: Operations.Heartbeat.Output.undocumented)
    }

    func submitEvents(_ input: Operations.SubmitEvents.Input) async throws -> Operations.SubmitEvents.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let batch = try DeviceRequestMapping.batch(body)
        let reply = try await ingest.handleBatch(
            batch, idempotencyKey: input.headers.idempotencyKey, principal: try Caller.current(),
            deviceDate: try Self.deviceDate(input.headers.date))
        return try StoredAnswerMiddleware.answer(
            await withReceipts(reply, for: batch), as: Operations.SubmitEvents.Output.undocumented)
    }

    /// The answer to one device event, with its receipt.
    private func ingest(_ request: DeviceRequest, key: String, date: String? = nil) async throws -> StoredReply {
        let reply = try await ingest.handle(
            request, idempotencyKey: key, principal: try Caller.current(), deviceDate: try Self.deviceDate(date))
        return await withReceipt(reply, for: request)
    }

    /// The device's clock from its `Date` header (an HTTP-date), if it sent one.
    static func deviceDate(_ header: String?) throws -> Date? {
        guard let header else { return nil }
        guard let date = HTTPDate.parse(header) else {
            throw DomainError.field(
                "Date", InputRules.shown(header),
                expected: "an HTTP-date naming a real time, e.g. Tue, 24 Nov 2026 09:00:00 GMT",
                kind: .unprocessable)
        }
        return date
    }

    // MARK: Sites and beacons

    func listSites(_ input: Operations.ListSites.Input) async throws -> Operations.ListSites.Output {
        let scope = try Caller.current().siteScope
        let sites = try await repository.sites().filter { $0.isActive && scope.permits($0.id) }
        return .ok(.init(body: .json(sites.map(Self.site))))
    }

    func createSite(_ input: Operations.CreateSite.Input) async throws -> Operations.CreateSite.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let site = try await admin.createSite(
            Self.siteInput(body), actor: try Caller.actor(), idempotencyKey: input.headers.idempotencyKey)
        return .created(.init(body: .json(Self.site(site))))
    }

    func getSite(_ input: Operations.GetSite.Input) async throws -> Operations.GetSite.Output {
        let id: SiteID = try Self.id("siteId", input.path.siteId)
        try Caller.current().requireSite(id)
        return .ok(.init(body: .json(Self.site(try await admin.site(id: id)))))
    }

    func updateSite(_ input: Operations.UpdateSite.Input) async throws -> Operations.UpdateSite.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        return .ok(
            .init(
                body: .json(
                    Self.site(
                        try await admin.updateSite(
                            id: try Self.id("siteId", input.path.siteId), Self.siteInput(body),
                            actor: try Caller.actor())))
            ))
    }

    func deleteSite(_ input: Operations.DeleteSite.Input) async throws -> Operations.DeleteSite.Output {
        try await admin.deleteSite(id: try Self.id("siteId", input.path.siteId), actor: try Caller.actor())
        return .noContent(.init())
    }

    func listBeacons(_ input: Operations.ListBeacons.Input) async throws -> Operations.ListBeacons.Output {
        let id: SiteID = try Self.id("siteId", input.path.siteId)
        try Caller.current().requireSite(id)
        return .ok(.init(body: .json(try await admin.beacons(siteId: id).map(Self.beacon))))
    }

    func createBeacon(_ input: Operations.CreateBeacon.Input) async throws -> Operations.CreateBeacon.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let beacon = try await admin.createBeacon(
            siteId: try Self.id("siteId", input.path.siteId), minor: body.minor, label: body.label,
            txPowerDBm: body.txPowerDBm, actor: try Caller.actor(), idempotencyKey: input.headers.idempotencyKey)
        return .created(.init(body: .json(Self.beacon(beacon))))
    }

    func deleteBeacon(_ input: Operations.DeleteBeacon.Input) async throws -> Operations.DeleteBeacon.Output {
        try await admin.deleteBeacon(
            id: try Self.id("beaconId", input.path.beaconId) as BeaconID, actor: try Caller.actor())
        return .noContent(.init())
    }

    // MARK: Employees, codes, devices

    func listEmployees(_ input: Operations.ListEmployees.Input) async throws -> Operations.ListEmployees.Output {
        .ok(.init(body: .json(try await repository.employees().map(Self.employee))))
    }

    func createEmployee(_ input: Operations.CreateEmployee.Input) async throws -> Operations.CreateEmployee.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        return .created(
            .init(
                body: .json(
                    Self.employee(
                        try await admin.createEmployee(
                            name: body.name, externalId: body.externalId, email: body.email, actor: try Caller.actor(),
                            idempotencyKey: input.headers.idempotencyKey))
                )))
    }

    func getEmployee(_ input: Operations.GetEmployee.Input) async throws -> Operations.GetEmployee.Output {
        .ok(.init(body: .json(Self.employee(try await admin.employee(id: try Self.id("userId", input.path.userId))))))
    }

    func updateEmployee(_ input: Operations.UpdateEmployee.Input) async throws -> Operations.UpdateEmployee.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let employee = try await admin.updateEmployee(
            id: try Self.id("userId", input.path.userId), name: body.name, externalId: body.externalId,
            email: body.email, actor: try Caller.actor())
        return .ok(.init(body: .json(Self.employee(employee))))
    }

    func deactivateEmployee(
        _ input: Operations.DeactivateEmployee.Input
    ) async throws -> Operations.DeactivateEmployee.Output {
        .ok(
            .init(
                body: .json(
                    Self.employee(
                        try await admin.deactivateEmployee(
                            id: try Self.id("userId", input.path.userId), actor: try Caller.actor())))))
    }

    func exportEmployee(_ input: Operations.ExportEmployee.Input) async throws -> Operations.ExportEmployee.Output {
        let data = try await admin.personalData(id: try Self.id("userId", input.path.userId))
        let pending = data.pendingEvents.map { event in
            Components.Schemas.PersonalData.PendingEventsPayloadPayload(
                sessionKey: event.sessionKey.rawValue, _type: event.kind == .checkOut ? .checkOut : .heartbeat,
                ts: event.at,
                reason: event.reason, receivedAt: event.receivedAt)
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        exportedAt: data.exportedAt, employee: Self.employee(data.employee),
                        devices: data.devices.map(Self.device),
                        sessions: data.sessions.map(Self.session), pendingEvents: pending,
                        requests: data.requests.map(Self.request), ledger: try data.ledger.map(Self.entry)))))
    }

    func createEnrollmentCode(_ input: Operations.CreateEnrollmentCode.Input) async throws
        -> Operations.CreateEnrollmentCode.Output
    {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let issued = try await auth.issueEnrollmentCode(
            for: try Self.id("userId", body.userId), validForSeconds: Double(body.expiresInSeconds ?? 86_400),
            actor: try Caller.actor(), idempotencyKey: input.headers.idempotencyKey)
        return .created(.init(body: .json(.init(code: issued.code, userId: body.userId, expiresAt: issued.expiresAt))))
    }

    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        .ok(
            .init(
                body: .json(
                    try await repository.devices(userId: input.query.userId.map { try Self.id("userId", $0) }).map(
                        Self.device))))
    }

    func revokeDevice(_ input: Operations.RevokeDevice.Input) async throws -> Operations.RevokeDevice.Output {
        let device = try await admin.revokeDevice(
            id: try Self.id("deviceId", input.path.deviceId), actor: try Caller.actor())
        return .ok(.init(body: .json(Self.device(device))))
    }

    // MARK: Reports

    func listSessions(_ input: Operations.ListSessions.Input) async throws -> Operations.ListSessions.Output {
        let query = input.query
        let caller = try Caller.current()
        if caller.siteScope != .all {
            guard let site = query.siteId else {
                throw Problem(
                    403, "Forbidden", "this account sees only the sites assigned to it: name one with 'siteId'")
            }
            try caller.requireSite(SiteID(site))
        }
        if query.format == .csv {
            // Every session the filter matches (limit and cursor are for JSON pages).
            let filter = try admin.sessionFilter(
                userId: query.userId, siteId: query.siteId, from: query.from.map(RFC3339.format),
                to: query.to.map(RFC3339.format), source: query.source.flatMap { EventSource(rawValue: $0.rawValue) },
                correctedOnly: query.source == .corrected, minSkewSeconds: query.minSkewSeconds)
            let rows = SessionsCSV(repository: repository, filter: filter)
            return .ok(.init(body: .csv(HTTPBody(rows, length: .unknown, iterationBehavior: .single))))
        }
        let page = try await admin.sessions(
            userId: query.userId, siteId: query.siteId, from: query.from.map(RFC3339.format),
            to: query.to.map(RFC3339.format), limit: query.limit, cursor: query.cursor,
            source: query.source.flatMap { EventSource(rawValue: $0.rawValue) },
            correctedOnly: query.source == .corrected,
            minSkewSeconds: query.minSkewSeconds)
        return .ok(.init(body: .json(.init(items: page.items.map(Self.session), nextCursor: page.nextCursor))))
    }

    func getPresence(_ input: Operations.GetPresence.Input) async throws -> Operations.GetPresence.Output {
        let entries = try await admin.presence(siteId: input.query.siteId, scope: try Caller.current().siteScope)
        return .ok(
            .init(
                body: .json(
                    entries.map {
                        .init(
                            userId: $0.session.userId.rawValue, name: $0.name, siteId: $0.session.siteId.rawValue,
                            sessionKey: $0.session.sessionKey.rawValue, since: $0.session.checkInAt,
                            lastSeenAt: $0.session.lastSeenAt)
                    })))
    }

    // MARK: Records to the contract's types

    static let unsupportedBody = Problem(415, "Unsupported media type", "the body must be application/json")

    /// A path, query or body id, checked against the identifier rule (`InputRules`) once, here.
    static func id<Tag>(_ field: String, _ value: String) throws -> Identifier<Tag> {
        try InputRules.identifier(field, value, maxLength: InputRules.maxIdLength)
        return Identifier<Tag>(value)
    }

    static func id(_ field: String, _ value: String) throws -> String {
        try InputRules.identifier(field, value, maxLength: InputRules.maxIdLength)
        return value
    }

    static func siteInput(_ body: Components.Schemas.SiteInput) -> AdminService.SiteInput {
        AdminService.SiteInput(
            name: body.name, timeZone: body.timeZone, beaconUUID: body.beaconUUID, major: body.major,
            geofence: body.geofence.map {
                Geofence(latitude: $0.latitude, longitude: $0.longitude, radiusMeters: $0.radiusMeters)
            })
    }

    static func site(_ site: SiteRecord) -> Components.Schemas.Site {
        .init(
            siteId: site.id.rawValue, name: site.name, timeZone: site.timeZone, beaconUUID: site.beacon.uuid.uuidString,
            major: Int(site.beacon.major),
            geofence: site.geofence.map {
                .init(latitude: $0.latitude, longitude: $0.longitude, radiusMeters: $0.radiusMeters)
            },
            deactivatedAt: site.deactivatedAt)
    }

    static func beacon(_ beacon: BeaconRecord) -> Components.Schemas.Beacon {
        .init(
            beaconId: beacon.id.rawValue, siteId: beacon.siteId.rawValue, minor: Int(beacon.minor), label: beacon.label,
            txPowerDBm: beacon.txPowerDBm)
    }

    static func employee(_ employee: EmployeeRecord) -> Components.Schemas.Employee {
        .init(
            userId: employee.id.rawValue, name: employee.name, externalId: employee.externalId, email: employee.email,
            deactivatedAt: employee.deactivatedAt)
    }

    static func device(_ device: DeviceRecord) -> Components.Schemas.Device {
        .init(
            deviceId: device.id.rawValue, userId: device.userId.rawValue, platform: device.platform,
            deviceName: device.deviceName,
            enrolledAt: device.enrolledAt, lastSeenAt: device.lastSeenAt, revoked: device.revokedAt != nil,
            appVersion: device.state?.appVersion ?? device.appVersion,
            reportedState: device.state.map { state in
                .init(
                    observedAt: state.observedAt,
                    location: .init(rawValue: state.permissions.location.rawValue) ?? .notDetermined,
                    preciseLocation: state.permissions.preciseLocation,
                    bluetooth: .init(rawValue: state.permissions.bluetooth.rawValue) ?? .unknown,
                    backgroundRefreshAvailable: state.permissions.backgroundRefreshAvailable,
                    detectionBlockers: state.blockers)
            })
    }

    /// The same value `IngestService` answers with, so a report and a check-in answer agree.
    static func session(_ session: SessionRecord) -> Components.Schemas.Session {
        ContractAnswers.session(session)
    }

    /// A ledger row: its columns, and its content as `details` (with the personal part, unless erased).
    static func entry(_ event: LedgerEvent) throws -> Components.Schemas.LedgerEntry {
        var details = (try JSONSerialization.jsonObject(with: event.payload) as? [String: Any]) ?? [:]
        if let opened = event.opened {
            // Free text kept in the personal part shows where the payload kept it before.
            if let reason = opened.reason { details["reason"] = reason }
            if let comment = opened.comment { details["comment"] = comment }
            if let evidence = opened.evidence { details["requestEvidence"] = evidence }
            if !opened.changes.isEmpty,
                let changes = try JSONSerialization.jsonObject(with: LedgerPayload.encoder.encode(opened.changes))
                    as? [String: Any]
            {
                details["personal"] = changes
            }
        } else if event.personalDigest != nil {
            details["personal"] = "erased"
        }
        let container = try Wire.decode(
            OpenAPIObjectContainer.self,
            from: try JSONSerialization.data(withJSONObject: details, options: [.sortedKeys]))
        return .init(
            id: Int(event.id), kind: event.kind.rawValue, actor: event.actor.rawValue, receivedAt: event.receivedAt,
            deviceAt: event.deviceAt, sessionKey: event.sessionKey?.rawValue, userId: event.userId?.rawValue,
            hash: event.hash, details: .init(additionalProperties: container))
    }

    static func request(_ request: CorrectionRequestRecord) -> Components.Schemas.CorrectionRequest {
        .init(
            requestId: request.id.rawValue, userId: request.userId.rawValue,
            kind: request.kind == .correction ? .correction : .missingSession,
            state: .init(rawValue: request.state.rawValue) ?? .pending, sessionKey: request.sessionKey?.rawValue,
            siteId: request.siteId?.rawValue, checkInAt: request.checkInAt, checkOutAt: request.checkOutAt,
            reason: request.reason,
            evidence: request.evidence.isEmpty ? nil : .init(additionalProperties: request.evidence),
            createdAt: request.createdAt, decidedAt: request.decidedAt, decidedBy: request.decidedBy?.rawValue,
            comment: request.comment)
    }
}
