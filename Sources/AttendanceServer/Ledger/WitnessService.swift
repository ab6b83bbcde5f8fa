import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation

/// The server's side of the witnesses (LEDGER.md, "Witnesses"): it keeps a cosignature when it is
/// by a witness it was told of (`--witness-key`) and of a checkpoint it signed, and says what each
/// witness last cosigned.
public struct WitnessService: Sendable {
    public let repository: any LedgerTreeRepository
    public let witnesses: [CosignatureVerifier]
    let now: @Sendable () -> Date

    public init(
        repository: any LedgerTreeRepository, witnesses: [CosignatureVerifier],
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.repository = repository
        self.witnesses = witnesses
        self.now = now
    }

    /// A known witness and the largest tree it cosigned (nil: none yet).
    public struct Status: Sendable, Equatable {
        public var witness: CosignatureVerifier
        public var last: StoredCosignature?
    }

    /// How far in the future a cosignature's time may be (clocks differ).
    static let clockSlack: TimeInterval = 300

    /// Keeps the cosignature of a known witness in `note` (a checkpoint this server signed, with
    /// the witness's line added).
    public func accept(_ note: String) async throws -> StoredCosignature {
        let parsed: SignedNote.Parsed
        let checkpoint: Checkpoint
        do {
            parsed = try SignedNote.parse(note)
            checkpoint = try Checkpoint(text: parsed.text)
        } catch {
            throw DomainError.field(
                "body", String(note.prefix(80)), expected: "a cosigned checkpoint note (\(error))", kind: .unprocessable
            )
        }
        guard let stored = try await repository.checkpoint(size: checkpoint.size) else {
            throw DomainError(
                .notFound, "Not found", "this server signed no checkpoint of \(checkpoint.size) rows")
        }
        guard stored.checkpoint == checkpoint else {
            throw DomainError.field(
                "body", String(parsed.text.prefix(120)),
                expected: "the checkpoint this server signed at \(checkpoint.size) rows (origin and root differ)",
                kind: .unprocessable)
        }
        let names = witnesses.map(\.name).joined(separator: ", ")
        for witness in witnesses {
            guard let (time, line) = witness.cosignature(in: parsed) else { continue }
            let cosignedAt = Date(timeIntervalSince1970: TimeInterval(time))
            guard cosignedAt <= now().addingTimeInterval(Self.clockSlack) else {
                throw DomainError.field(
                    "time", RFC3339.format(cosignedAt), expected: "a cosignature not made in the future",
                    kind: .unprocessable)
            }
            let cosignature = StoredCosignature(
                witness: witness.name, treeSize: checkpoint.size, line: line, cosignedAt: cosignedAt,
                receivedAt: now())
            _ = try await repository.storeCosignature(cosignature)
            return cosignature
        }
        throw DomainError.field(
            "body", parsed.signatures.map(\.name).joined(separator: ", "),
            expected: witnesses.isEmpty
                ? "a witness this server knows, but it was started without --witness-key"
                : "a valid cosignature by one of the witnesses this server knows (\(names))",
            kind: .unprocessable)
    }

    /// Every known witness with the largest tree it cosigned.
    public func statuses() async throws -> [Status] {
        let latest = Dictionary(
            try await repository.latestCosignatures().map { ($0.witness, $0) }, uniquingKeysWith: { first, _ in first })
        return witnesses.map { Status(witness: $0, last: latest[$0.name]) }
    }
}
