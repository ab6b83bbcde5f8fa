import AttendanceModels
import Foundation

/// Walks the chain (`attendance ledger verify`): fed every seal with its row in sequence order,
/// then the rows not sealed yet, it recomputes each row's content hash and each link, and keeps
/// the first break. Pure; the repositories only read rows in pages.
public struct LedgerVerifier: Sendable {
    private var previous = LedgerHash.genesis
    private var expectedSequence: Int64 = 1
    public private(set) var sealed = 0
    public private(set) var unsealed = 0
    public private(set) var firstBreak: LedgerBreak?

    public init() {}

    /// Walks on from `seal`, taken as good (the server's check of the chain's tail).
    public init(after seal: LedgerSeal) {
        previous = seal.chainHash
        expectedSequence = seal.sequence + 1
    }

    /// The next seal, with the row it names (nil when that row is gone).
    public mutating func check(_ seal: LedgerSeal, event: LedgerEvent?) {
        sealed += 1
        defer {
            previous = seal.chainHash
            expectedSequence = seal.sequence + 1
        }
        guard firstBreak == nil else { return }
        guard seal.sequence == expectedSequence else {
            return broken(seal, "seal \(expectedSequence) is missing: the chain goes on at seal \(seal.sequence)")
        }
        guard let event else {
            return broken(seal, "row \(seal.eventId), sealed at \(seal.sequence), is missing (deleted)")
        }
        if let problem = Self.contentProblem(event) { return broken(seal, problem) }
        let expected = LedgerHash.seal(
            previous: previous, sequence: seal.sequence, eventId: event.id, contentHash: LedgerHash.content(of: event))
        guard expected == seal.chainHash else {
            return broken(
                seal,
                "seal \(seal.sequence) does not follow from seal \(seal.sequence - 1) "
                    + "(row \(event.id) or the seal was changed after sealing)")
        }
    }

    /// A row committed but not sealed yet: its content is checked; the chain can't vouch for it.
    /// The sealer takes every row within a second of its commit, so a row received outside
    /// `recent` (the last minute, say) that is still unsealed was written behind the server's back,
    /// or the sealer has stopped.
    public mutating func checkUnsealed(_ event: LedgerEvent, recent: ClosedRange<Date>? = nil) {
        unsealed += 1
        guard firstBreak == nil else { return }
        if let problem = Self.contentProblem(event) {
            firstBreak = LedgerBreak(sequence: nil, eventId: event.id, reason: problem)
        } else if let recent, !recent.contains(event.receivedAt) {
            firstBreak = LedgerBreak(
                sequence: nil, eventId: event.id,
                reason: "row \(event.id), received at \(RFC3339.format(event.receivedAt)), is not sealed: "
                    + "written behind the server's back, or the sealer has stopped")
        }
    }

    public var verification: LedgerVerification {
        LedgerVerification(sealed: sealed, unsealed: unsealed, firstBreak: firstBreak)
    }

    private mutating func broken(_ seal: LedgerSeal, _ reason: String) {
        firstBreak = LedgerBreak(sequence: seal.sequence, eventId: seal.eventId, reason: reason)
    }

    /// Why a row's stored hashes don't match its columns, or nil.
    package static func contentProblem(_ event: LedgerEvent) -> String? {
        if let personal = event.personal,
            SHA256.hex(String(decoding: personal, as: UTF8.self)) != event.personalDigest
        {
            return "row \(event.id)'s personal data does not match its digest (edited)"
        }
        guard LedgerHash.content(of: event) == event.hash else {
            return "row \(event.id)'s columns do not match its content hash (edited)"
        }
        return nil
    }
}

/// Where the chain first breaks.
public struct LedgerBreak: Hashable, Sendable, CustomStringConvertible {
    /// The seal where it breaks (nil: an unsealed row).
    public var sequence: Int64?
    public var eventId: Int64
    public var reason: String

    public var description: String { reason }
}

/// What `ledger verify` found.
public struct LedgerVerification: Hashable, Sendable {
    public var sealed: Int
    public var unsealed: Int
    public var firstBreak: LedgerBreak?

    package init(sealed: Int, unsealed: Int, firstBreak: LedgerBreak? = nil) {
        self.sealed = sealed
        self.unsealed = unsealed
        self.firstBreak = firstBreak
    }

    public var isIntact: Bool { firstBreak == nil }
}
