import AttendanceModels
import Foundation

/// The one mapping between a typed `LedgerRecord` and the stored `LedgerPayload`: each case sets
/// the fields its rows have always carried, so the canonical JSON (and so each row's hash) is what
/// the builders wrote before the record was typed, but for people's free text (`freeText`), which
/// rows written from 2026-11-27 keep in their erasable personal part.
extension LedgerRecord {
    public var payload: LedgerPayload {
        var payload = LedgerPayload()
        switch self {
        case .checkIn(let checkIn):
            payload.siteId = checkIn.siteId.rawValue
            payload.deviceId = checkIn.deviceId?.rawValue
            payload.source = checkIn.source.rawValue
            let evidence = checkIn.evidence
            // A manual check-in's reason is what the employee typed: personal (`freeText`).
            payload.checkInReason = checkIn.source == .manual ? nil : evidence.checkInReason
            payload.appVersion = evidence.appVersion
            payload.rule = evidence.rule
            payload.sampleCount = evidence.sampleCount
            payload.medianRSSI = evidence.medianRSSI
            payload.stdevDB = evidence.stdevDB
            payload.walking = evidence.walking
            payload.clockSkewSeconds = evidence.clockSkewSeconds
        case .checkOut(let event), .heartbeat(let event):
            payload.deviceId = event.deviceId?.rawValue
            payload.source = event.source.rawValue
            payload.reason = event.source == .manual ? nil : event.reason
        case .sessionCorrected(let change), .sessionAdded(let change), .sessionVoided(let change):
            payload.changes = change.changes
            payload.requestId = change.requestId?.rawValue
            payload.siteId = change.siteId?.rawValue
            payload.checkInAt = change.checkInAt?.timeIntervalSince1970
            payload.checkOutAt = change.checkOutAt?.timeIntervalSince1970
            payload.closingReason = change.closingReason
        case .requestFiled(let filed):
            payload.requestId = filed.requestId.rawValue
            payload.requestKind = filed.kind.rawValue
            payload.siteId = filed.siteId?.rawValue
            payload.checkInAt = filed.checkInAt?.timeIntervalSince1970
            payload.checkOutAt = filed.checkOutAt?.timeIntervalSince1970
        case .requestApproved(let decision), .requestRejected(let decision):
            payload.requestId = decision.requestId.rawValue
        case .audit(let audit):
            payload.target = audit.target
            payload.changes = audit.changes.isEmpty ? nil : audit.changes
            payload.reason = audit.reason
        }
        return payload
    }

    /// The free text people wrote about the employee (a manual check-in's or check-out's reason, a
    /// change's or request's reason, a request's evidence, a decision's comment): it goes in the
    /// row's personal part, not the payload, so erasure takes it (rows written before 2026-11-27
    /// carry it in the payload, and keep it).
    public var freeText: LedgerPersonal? {
        switch self {
        case .checkIn(let checkIn):
            checkIn.source == .manual ? checkIn.evidence.checkInReason.map { LedgerPersonal(reason: $0) } : nil
        case .checkOut(let event), .heartbeat(let event):
            event.source == .manual ? event.reason.map { LedgerPersonal(reason: $0) } : nil
        case .sessionCorrected(let change), .sessionAdded(let change), .sessionVoided(let change):
            LedgerPersonal(reason: change.reason)
        case .requestFiled(let filed):
            LedgerPersonal(reason: filed.reason, evidence: filed.evidence.isEmpty ? nil : filed.evidence)
        case .requestApproved(let decision), .requestRejected(let decision):
            decision.comment.map { LedgerPersonal(comment: $0) }
        case .audit: nil
        }
    }

    /// The typed content of `event`, read strictly (see `LedgerRecord`).
    public init(reading event: LedgerEvent) throws {
        let payload = try LedgerPayload.strict(event.payload, row: event.id)
        let read = LedgerRecordReader(event: event, payload: payload, personal: event.opened)
        switch event.kind {
        case .checkIn: self = .checkIn(try read.checkIn())
        case .checkOut: self = .checkOut(try read.sessionEvent())
        case .heartbeat: self = .heartbeat(try read.sessionEvent())
        case .sessionCorrected: self = .sessionCorrected(try read.sessionChange(requiring: false))
        case .sessionAdded: self = .sessionAdded(try read.sessionChange(requiring: true))
        case .sessionVoided: self = .sessionVoided(try read.sessionChange(requiring: false))
        case .requestFiled: self = .requestFiled(try read.requestFiled())
        case .requestApproved: self = .requestApproved(try read.requestDecision())
        case .requestRejected: self = .requestRejected(try read.requestDecision())
        case let kind where LedgerKind.auditKinds.contains(kind):
            self = .audit(
                Audit(kind: kind, target: payload.target, changes: payload.changes ?? [:], reason: payload.reason))
        default:
            throw LedgerReadError(
                id: event.id, expected: "a kind this release knows, not '\(event.kind.rawValue.prefix(40))'")
        }
    }
}

/// Reads what each kind needs from a row and its decoded payload, naming the row when it is missing.
private struct LedgerRecordReader {
    let event: LedgerEvent
    let payload: LedgerPayload
    /// The opened personal part: where newer rows keep their free text (nil once erased).
    let personal: LedgerPersonal?

    /// A device event's typed reason: in the payload, or in the personal part (a manual event's),
    /// or empty once that was erased.
    private func typedReason(_ inPayload: String?) -> String? {
        inPayload ?? personal?.reason ?? (event.personalDigest != nil ? "" : nil)
    }

    func checkIn() throws -> LedgerRecord.CheckIn {
        guard event.sessionKey != nil, event.userId != nil, event.deviceAt != nil, let siteId = payload.siteId else {
            throw LedgerReadError(id: event.id, expected: "a check-in with its session, employee, site and time")
        }
        let evidence = SessionEvidence(
            checkInReason: typedReason(payload.checkInReason), appVersion: payload.appVersion, rule: payload.rule,
            sampleCount: payload.sampleCount, medianRSSI: payload.medianRSSI, stdevDB: payload.stdevDB,
            walking: payload.walking, clockSkewSeconds: payload.clockSkewSeconds)
        return LedgerRecord.CheckIn(
            siteId: SiteID(siteId), deviceId: payload.deviceId.map { DeviceID($0) }, source: try source(),
            evidence: evidence)
    }

    func sessionEvent() throws -> LedgerRecord.SessionEvent {
        guard event.sessionKey != nil, event.deviceAt != nil else {
            throw LedgerReadError(id: event.id, expected: "a check-out or heartbeat with its session and time")
        }
        return LedgerRecord.SessionEvent(
            deviceId: payload.deviceId.map { DeviceID($0) }, source: try source(), reason: typedReason(payload.reason))
    }

    /// A correction, addition or void; an addition (`requiring`) names its employee, site and check-in.
    func sessionChange(requiring: Bool) throws -> LedgerRecord.SessionChange {
        guard event.sessionKey != nil else {
            throw LedgerReadError(id: event.id, expected: "a change of a session that names the session")
        }
        if requiring, event.userId == nil || payload.siteId == nil || payload.checkInAt == nil {
            throw LedgerReadError(id: event.id, expected: "an added session with its employee, site and check-in")
        }
        return LedgerRecord.SessionChange(
            reason: payload.reason ?? personal?.reason ?? "", changes: payload.changes ?? [:],
            requestId: payload.requestId.map { CorrectionRequestID($0) },
            siteId: payload.siteId.map { SiteID($0) },
            checkInAt: payload.checkInAt.map(Date.init(timeIntervalSince1970:)),
            checkOutAt: payload.checkOutAt.map(Date.init(timeIntervalSince1970:)),
            closingReason: payload.closingReason)
    }

    func requestFiled() throws -> LedgerRecord.RequestFiled {
        guard let requestId = payload.requestId, let text = payload.requestKind else {
            throw LedgerReadError(id: event.id, expected: "a filed request with its id and kind")
        }
        guard let kind = CorrectionRequestRecord.Kind(rawValue: text) else {
            throw LedgerReadError(id: event.id, expected: "a request kind this release knows, not '\(text.prefix(40))'")
        }
        return LedgerRecord.RequestFiled(
            requestId: CorrectionRequestID(requestId), kind: kind, siteId: payload.siteId.map { SiteID($0) },
            checkInAt: payload.checkInAt.map(Date.init(timeIntervalSince1970:)),
            checkOutAt: payload.checkOutAt.map(Date.init(timeIntervalSince1970:)),
            reason: payload.reason ?? personal?.reason ?? "",
            evidence: payload.requestEvidence ?? personal?.evidence ?? [:])
    }

    func requestDecision() throws -> LedgerRecord.RequestDecision {
        guard let requestId = payload.requestId else {
            throw LedgerReadError(id: event.id, expected: "a decision that names its request")
        }
        return LedgerRecord.RequestDecision(
            requestId: CorrectionRequestID(requestId), comment: payload.comment ?? personal?.comment)
    }

    /// The event's source: automatic where the row names none (rows written before sources were
    /// kept); a source this release does not know stops the read.
    private func source() throws -> EventSource {
        guard let text = payload.source else { return .automatic }
        guard let source = EventSource(rawValue: text) else {
            throw LedgerReadError(id: event.id, expected: "a source this release knows, not '\(text.prefix(40))'")
        }
        return source
    }
}

extension LedgerPayload {
    /// `data` decoded strictly: a JSON object of known fields with the right types (`init(from:)`),
    /// of a version this release knows. Each refusal names the row.
    static func strict(_ data: Data, row: Int64) throws -> LedgerPayload {
        let payload: LedgerPayload
        do {
            payload = try decoder.decode(LedgerPayload.self, from: data)
        } catch {
            throw LedgerReadError(id: row, expected: "a payload of known fields with their types (\(error))")
        }
        if let version = payload.version, version != LedgerRecord.version {
            throw LedgerReadError(
                id: row, expected: "a payload of version \(LedgerRecord.version), not version \(version)")
        }
        return payload
    }
}
