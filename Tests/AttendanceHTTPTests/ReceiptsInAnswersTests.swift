import AttendanceServerTestSupport
import Foundation
import Testing

/// The tests' rule for a replayed answer: the same bytes, or the same answer with the receipts the
/// first lacked; never another answer, nor one that lost or changed a receipt.
@Suite struct ReceiptsInAnswersTests {
    static let bare = Data(#"{"sessionKey":"s-1","status":"open"}"#.utf8)
    static let receipted = Data(#"{"sessionKey":"s-1","status":"open","receipt":{"rowId":7,"leafIndex":6}}"#.utf8)

    @Test func aReplayIsTheSameBytesOrGainsTheReceiptTheFirstLacked() {
        #expect(ReceiptsInAnswers.isReplay(Self.receipted, of: Self.receipted))
        #expect(ReceiptsInAnswers.isReplay(Self.receipted, of: Self.bare))
        #expect(ReceiptsInAnswers.withoutReceipts(Self.receipted) == ReceiptsInAnswers.withoutReceipts(Self.bare))
        #expect(ReceiptsInAnswers.receipts(Self.receipted).count == 1)
    }

    @Test func anotherAnswerALostReceiptOrAnotherReceiptIsNoReplay() {
        let closed = Data(#"{"sessionKey":"s-1","status":"closed"}"#.utf8)
        let otherRow = Data(#"{"sessionKey":"s-1","status":"open","receipt":{"rowId":8,"leafIndex":7}}"#.utf8)
        #expect(!ReceiptsInAnswers.isReplay(closed, of: Self.bare))
        #expect(!ReceiptsInAnswers.isReplay(Self.bare, of: Self.receipted))
        #expect(!ReceiptsInAnswers.isReplay(otherRow, of: Self.receipted))
        let batch = Data(#"{"results":[],"receipts":[{"idempotencyKey":"e-1","receipt":{"rowId":1}}]}"#.utf8)
        #expect(!ReceiptsInAnswers.isReplay(Data(#"{"results":[]}"#.utf8), of: batch))
    }
}
