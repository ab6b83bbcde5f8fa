import AttendanceModels
import Foundation

/// Admin actions as ledger rows (the audit trail): what was changed, its id, and each field's
/// before and after. Personal fields (names, e-mail, external ids) go in the row's erasable part.
extension LedgerEvent {
    /// The fields of an employee that identify a person.
    /// A leave day's type and note can be health data (sick leave).
    public static let personalFields: Set<String> = ["name", "email", "externalId", "leave"]

    public static func admin(
        _ kind: LedgerKind, target: String, userId: UserID? = nil, changes: [String: LedgerChange],
        actor: LedgerActor, now: Date
    ) -> LedgerEvent {
        var payload = LedgerPayload()
        payload.target = target
        let plain = changes.filter { !personalFields.contains($0.key) }
        payload.changes = plain.isEmpty ? nil : plain
        let personal = LedgerPersonal(changes: changes.filter { personalFields.contains($0.key) })
        return LedgerEvent(
            kind: kind, userId: userId, actor: actor, receivedAt: now, payload: payload.encoded(),
            personal: personal.encoded())
    }

    /// The row that records an erasure (it carries no personal data itself).
    public static func erased(_ userId: UserID, actor: LedgerActor, now: Date) -> LedgerEvent {
        admin(.employeeErased, target: userId.rawValue, userId: userId, changes: [:], actor: actor, now: now)
    }
}
