import AttendanceModels
import Foundation

/// A row's personal part sealed on the way into the store and opened on the way out, with its
/// subject's key (`PersonalSeal`; the keys are the store's, docs/LEDGER.md "Erasure").
extension LedgerEvent {
    /// This row as the store writes it: its personal part sealed under `key` (its subject's), the
    /// digest and the hash over the sealed text. A row without one, or sealed already, is itself.
    public func sealingPersonal(key: [UInt8]) throws -> LedgerEvent {
        guard let plain = personal, let subject = sealingSubject else { return self }
        var sealed = self
        sealed.personal = Data(try PersonalSeal.seal(plain, subject: subject, key: key).utf8)
        sealed.personalDigest = sealed.personal.map { SHA256.hex(bytes: $0) }
        sealed.hash = LedgerHash.content(of: sealed)
        return sealed
    }

    /// The subject whose key the personal part waits for (`sealingPersonal(key:)`); nil when there
    /// is none to seal.
    public var sealingSubject: String? {
        guard let personal, !PersonalSeal.isSealed(personal) else { return nil }
        return personalSubject
    }

    /// This row with its personal part opened: a sealed part with its subject's key in `keys`
    /// (none once erased: nothing to open), a part written before sealing as it is. A sealed part
    /// that doesn't open under its key throws (it was changed, and is not shown as erased).
    public func opening(with keys: [String: [UInt8]]) throws -> LedgerEvent {
        guard let stored = personal else { return self }
        var opened = self
        if !PersonalSeal.isSealed(stored) {
            opened.opened = LedgerPersonal.decoded(stored)
        } else if let subject = personalSubject, let key = keys[subject] {
            opened.opened = LedgerPersonal.decoded(try PersonalSeal.open(stored, key: key))
        }
        return opened
    }
}
