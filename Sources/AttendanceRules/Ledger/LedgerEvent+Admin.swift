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
        let plain = changes.filter { !personalFields.contains($0.key) }
        let personal = LedgerPersonal(changes: changes.filter { personalFields.contains($0.key) })
        return LedgerEvent(
            .audit(.init(kind: kind, target: target, changes: plain)), userId: userId, actor: actor, receivedAt: now,
            personal: personal, subject: userId?.rawValue ?? target)
    }

    /// An admin action on the record `target` names.
    public static func admin<Tag>(
        _ kind: LedgerKind, target: Identifier<Tag>, userId: UserID? = nil, changes: [String: LedgerChange],
        actor: LedgerActor, now: Date
    ) -> LedgerEvent {
        admin(kind, target: target.rawValue, userId: userId, changes: changes, actor: actor, now: now)
    }

    /// The row that records an erasure (it carries no personal data itself).
    public static func erased(_ userId: UserID, actor: LedgerActor, now: Date) -> LedgerEvent {
        admin(.employeeErased, target: userId.rawValue, userId: userId, changes: [:], actor: actor, now: now)
    }
}
