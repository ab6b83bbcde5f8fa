import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Testing

/// The tree's growths kept in memory for the answers' receipts: a device event's row is found by
/// its actor, session, kind and device time, proved into the growth's checkpoint from the growth's
/// own nodes; the oldest growths go once the rows kept pass the limit.
@Suite struct RecentTreeGrowthsTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)

    static func row(_ id: Int64, session: String, device: DeviceID = "phone-a") -> LedgerEvent {
        var event = LedgerEvent(
            .checkIn(.init(siteId: "hq", deviceId: device, source: .automatic, evidence: SessionEvidence())),
            sessionKey: SessionKey(session), userId: "alice", actor: .device(device), receivedAt: t0,
            deviceAt: t0.addingTimeInterval(Double(id)))
        event.id = id
        return event
    }

    /// Appends `rows` to a tree of `appender.size` leaves, as the store's growth does.
    static func grow(_ appender: inout MerkleAppender, _ rows: [LedgerEvent]) -> LedgerTreeGrowth {
        let from = appender.size
        var nodes: [MerkleTree.Node: MerkleTree.Hash] = [:]
        for (node, hash) in zip(MerkleTree.nodes(covering: 0..<from), appender.edge) { nodes[node] = hash }
        var grown = MerkleAppender(size: from, edge: appender.edge)
        for row in rows { grown.append(leafHash: LedgerLeaf.hash(eventId: row.id, contentHash: row.hash)) }
        for (node, hash) in grown.written { nodes[node] = hash }
        appender = grown
        let checkpoint = Checkpoint(origin: "example.com/ledger", size: grown.size, rootHash: grown.root)
        return LedgerTreeGrowth(
            checkpoint: StoredCheckpoint(checkpoint: checkpoint, note: "note \(grown.size)", signedAt: t0),
            from: from, rows: rows, nodes: nodes)
    }

    static func ref(_ row: LedgerEvent) -> DeviceEventRef {
        DeviceEventRef(sessionKey: row.sessionKey!, kind: row.kind, at: row.deviceAt!)
    }

    @Test func aRowIsProvedIntoItsGrowthsCheckpointAndTheOldestGrowthsGo() throws {
        let recent = RecentTreeGrowths(rows: 3)
        var appender = MerkleAppender(size: 0, edge: [])
        let first = [Self.row(1, session: "s-1"), Self.row(2, session: "s-2")]
        let second = [Self.row(3, session: "s-3"), Self.row(4, session: "s-4", device: "phone-b")]
        let grown = [Self.grow(&appender, first), Self.grow(&appender, second)]
        recent.add(grown[0])
        let early = try #require(recent.receipt(actor: .device("phone-a"), event: Self.ref(first[1])))
        #expect(early.checkpoint == "note 2" && early.receipt.leafIndex == 1 && early.receipt.rowId == 2)
        recent.add(grown[1])
        // Four rows kept against a limit of three: the first growth went.
        #expect(recent.receipt(actor: .device("phone-a"), event: Self.ref(first[1])) == nil)
        let later = try #require(recent.receipt(actor: .device("phone-a"), event: Self.ref(second[0])))
        #expect(later.checkpoint == "note 4" && later.receipt.leafIndex == 2)
        #expect(
            MerkleProof.verifyInclusion(
                leafHash: LedgerLeaf.hash(eventId: 3, contentHash: SHA256.hex(later.receipt.entry)), index: 2, size: 4,
                proof: later.receipt.proof, root: grown[1].checkpoint.checkpoint.rootHash))
        // Another phone's row is not this phone's.
        #expect(recent.receipt(actor: .device("phone-a"), event: Self.ref(second[1])) == nil)
        #expect(recent.receipt(actor: .device("phone-b"), event: Self.ref(second[1])) != nil)
    }
}
