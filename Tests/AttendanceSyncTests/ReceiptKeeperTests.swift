import AttendanceDeviceTestSupport
import AttendanceModels
import AttendanceSync
import Foundation
import Synchronization
import Testing

/// The phone's receipt checks (LEDGER.md, "Receipts") against a ledger built here: a valid page is
/// kept; a bad signature, a proof for another leaf and a later checkpoint that doesn't extend the
/// last are each kept as the phone's problem, reported to the server, and nothing of the page kept.
@Suite struct ReceiptKeeperTests {
    static let device: DeviceID = "dev-1"
    static let signer = (try? NoteSigner.generate(name: "example.com/ledger"))!

    /// A ledger of `rows` rows (ids 1…), this phone's, and what the server would answer from it.
    struct Ledger {
        var entries: [String]
        var signer = ReceiptKeeperTests.signer

        init(rows: Int, variant: String = "") {
            entries = (1...rows).map { "ledger-v1\ncheckIn\ns-\($0)\nada\ndevice:dev-1\n\($0)\n\($0)\n{\(variant)}\n" }
        }

        var appender: MerkleAppender {
            var appender = MerkleAppender(size: 0, edge: [])
            for (index, entry) in entries.enumerated() {
                appender.append(leafHash: LedgerLeaf.hash(eventId: Int64(index + 1), contentHash: SHA256.hex(entry)))
            }
            return appender
        }

        var stored: [MerkleTree.Node: MerkleTree.Hash] {
            Dictionary(appender.written.map { ($0.node, $0.hash) }, uniquingKeysWith: { first, _ in first })
        }

        func hashes(_ ranges: [Range<Int64>]) -> [MerkleTree.Hash] {
            let stored = stored
            return ranges.map { MerkleTree.hash(of: $0, from: stored)! }
        }

        /// Row `row`'s receipt as an answer carries it: proved into this ledger's checkpoint.
        func answer(row: Int64) throws -> AnswerReceipt {
            let page = try page(after: 0)
            return AnswerReceipt(receipt: page.receipts[Int(row - 1)], checkpoint: page.checkpoint)
        }

        func page(after: Int64) throws -> ReceiptPage {
            let size = Int64(entries.count)
            let checkpoint = Checkpoint(origin: signer.name, size: size, rootHash: appender.root)
            let receipts = entries.enumerated().dropFirst(Int(after)).map { index, entry in
                LedgerReceipt(
                    rowId: Int64(index + 1), leafIndex: Int64(index), entry: entry,
                    proof: hashes(MerkleTree.inclusionRanges(index: Int64(index), size: size)))
            }
            return ReceiptPage(
                logKey: ReceiptKeeperTests.signer.verifier.encoded, checkpoint: try signer.sign(checkpoint.text),
                receipts: receipts, nextAfter: nil)
        }
    }

    /// The server's half: the pages it answers, and the warnings it was sent.
    final class Server: ReceiptSource {
        let ledger: Mutex<Ledger>
        let tamper: Mutex<(@Sendable (ReceiptPage) -> ReceiptPage)?> = Mutex(nil)
        let warnings = Mutex<[String]>([])

        init(_ ledger: Ledger) { self.ledger = Mutex(ledger) }

        func receipts(after: Int64) async throws(RecordError) -> ReceiptPage {
            let page: ReceiptPage
            do { page = try ledger.withLock { try $0.page(after: after) } } catch {
                throw .server(status: 500, detail: "\(error)")
            }
            return tamper.withLock { $0 }.map { $0(page) } ?? page
        }

        func consistency(from: Int64, to: Int64) async throws(RecordError) -> [MerkleTree.Hash] {
            ledger.withLock { $0.hashes(MerkleTree.consistencyRanges(old: from, new: to)) }
        }

        func reportLedgerWarning(_ problem: String, checkpoint: String?) async throws(RecordError) {
            warnings.withLock { $0.append(problem) }
        }
    }

    static func keeper(_ server: Server) throws -> (ReceiptKeeper, DeviceStore) {
        let store = try DeviceStore.inMemory()
        return (ReceiptKeeper(store: store, source: server, deviceID: device), store)
    }

    @Test func aValidPageIsKeptAndALaterOneAfterItsConsistencyProof() async throws {
        let server = Server(Ledger(rows: 3))
        let (keeper, store) = try Self.keeper(server)
        let first = try #require(try await keeper.refresh(now: Date()))
        #expect(first.receipts == 3 && first.checkedSize == 3 && first.problem == nil)
        #expect(first.logKey == Self.signer.verifier.encoded)
        server.ledger.withLock { $0 = Ledger(rows: 5) }
        let second = try #require(try await keeper.refresh(now: Date()))
        #expect(second.receipts == 5 && second.checkedSize == 5 && second.problem == nil)
        #expect(try store.ledgerReceipts().map(\.receipt.rowId) == [1, 2, 3, 4, 5])
        // Each receipt names the checkpoint its proof leads to; the later one kept its proof.
        #expect(try store.ledgerReceipts().map(\.checkpointSize) == [3, 3, 3, 5, 5])
        let kept = try store.ledgerCheckpoints()
        #expect(kept.map(\.size) == [3, 5] && kept[1].consistencyFrom == 3 && !kept[1].consistencyProof.isEmpty)
        #expect(server.warnings.withLock { $0 }.isEmpty)

        // "My record" checks offline (docs/examples/verify-my-record.sh, openssl and Python alone),
        // the consistency from 3 to 5 rows included; a changed proof fails it.
        let file = try #require(try MyRecord.file(store: store, deviceID: Self.device.rawValue))
        let (status, printed) = try MyRecordScript.verify(file.contents)
        #expect(status == 0, "\(printed)")
        #expect(printed.contains("row 5 (leaf 4): checkIn s-5") && printed.contains("up to 5 rows"), "\(printed)")
        let proof = Data(kept[1].consistencyProof[0]).base64EncodedString()
        let forged = file.contents.replacingOccurrences(
            of: proof, with: Data(repeating: 7, count: 32).base64EncodedString())
        #expect(forged != file.contents)
        #expect(try MyRecordScript.verify(forged).status != 0)
    }

    @Test func aCheckpointSignedByAnotherKeyIsAProblemReported() async throws {
        var forged = Ledger(rows: 3)
        forged.signer = try NoteSigner.generate(name: "example.com/ledger")
        let server = Server(forged)
        let (keeper, store) = try Self.keeper(server)
        let state = try #require(try await keeper.refresh(now: Date()))
        #expect(state.problem?.contains("does not verify") == true, "\(state.problem ?? "")")
        #expect(state.receipts == 0 && state.problemReported)
        #expect(server.warnings.withLock { $0 }.count == 1)
        #expect(try store.ledgerReceipts().isEmpty)
    }

    @Test func aProofForAnotherLeafIsAProblem() async throws {
        let server = Server(Ledger(rows: 3))
        server.tamper.withLock {
            $0 = { page in
                var page = page
                page.receipts[1].proof = page.receipts[0].proof
                return page
            }
        }
        let (keeper, _) = try Self.keeper(server)
        let state = try #require(try await keeper.refresh(now: Date()))
        #expect(state.problem == "row 2's proof does not lead to the root of the checkpoint of 3 rows")
        #expect(state.receipts == 0)
    }

    @Test func aLaterCheckpointThatDoesNotExtendTheLastIsAProblem() async throws {
        let server = Server(Ledger(rows: 3))
        let (keeper, store) = try Self.keeper(server)
        _ = try await keeper.refresh(now: Date())
        // The server rewrote row 2 and grew: its new tree doesn't start with the one the phone kept.
        server.ledger.withLock { $0 = Ledger(rows: 5, variant: "edited") }
        let state = try #require(try await keeper.refresh(now: Date()))
        #expect(state.problem?.contains("does not extend the 3 kept before") == true, "\(state.problem ?? "")")
        #expect(state.checkedSize == 3 && state.receipts == 3)
        #expect(server.warnings.withLock { $0 }.count == 1)
        #expect(try store.ledgerReceipts().count == 3)
    }

    /// A receipt an answer carried, proved into an earlier checkpoint, is confirmed once the pages'
    /// checkpoint is shown to extend it and the row's page receipt is the same; one newer than
    /// the pages waits.
    @Test func anAnswersReceiptIsConfirmedAgainstThePages() async throws {
        let server = Server(Ledger(rows: 5))
        let (keeper, store) = try Self.keeper(server)
        try store.keepAnswerReceipts(
            [try Ledger(rows: 3).answer(row: 2), try Ledger(rows: 6).answer(row: 6)], at: Date())
        let state = try #require(try await keeper.refresh(now: Date()))
        #expect(state.problem == nil && state.receipts == 5, "\(state.problem ?? "")")
        // Row 2 is confirmed (dropped); row 6's checkpoint is past the pages': it waits.
        #expect(try store.answerReceipts().map(\.receipt.rowId) == [6])
        server.ledger.withLock { $0 = Ledger(rows: 6) }
        #expect(try await keeper.refresh(now: Date())?.problem == nil)
        #expect(try store.answerReceipts().isEmpty)
        #expect(server.warnings.withLock { $0 }.isEmpty)
    }

    /// The server answered row 2 in one tree and then rewrote it: the tree the pages show doesn't
    /// extend the checkpoint the answer carried, which the phone reports.
    @Test func aRowRewrittenAfterItsAnswerIsAProblem() async throws {
        let server = Server(Ledger(rows: 5, variant: "edited"))
        let (keeper, store) = try Self.keeper(server)
        try store.keepAnswerReceipts([try Ledger(rows: 3).answer(row: 2)], at: Date())
        let state = try #require(try await keeper.refresh(now: Date()))
        #expect(
            state.problem?.contains("the checkpoint of 3 rows an answer carried is not part of the log") == true,
            "\(state.problem ?? "")")
        #expect(server.warnings.withLock { $0 }.count == 1)
        #expect(try store.answerReceipts().count == 1)
    }

    /// An answer whose receipt is for a row of another phone is refused as such.
    @Test func anAnswersReceiptForAnotherPhonesRowIsAProblem() async throws {
        let server = Server(Ledger(rows: 3))
        let (keeper, store) = try Self.keeper(server)
        var answer = try Ledger(rows: 3).answer(row: 1)
        answer.receipt.entry = answer.receipt.entry.replacingOccurrences(of: "device:dev-1", with: "device:dev-2")
        try store.keepAnswerReceipts([answer], at: Date())
        let state = try #require(try await keeper.refresh(now: Date()))
        #expect(state.problem?.contains("not of this phone's events") == true, "\(state.problem ?? "")")
    }
}
