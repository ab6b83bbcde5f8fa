import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Testing

/// Which ledger rows a process passes on to its live pages (`LedgerTail`), one rule per test.
@Suite struct LedgerTailTests {
    let start = Date(timeIntervalSince1970: 1_795_338_000)

    @Test func newRowsGiveTheirSessionsOnceInOrder() {
        var tail = LedgerTail(after: 10)
        let keys = tail.received([(11, "b"), (12, nil), (13, "a"), (14, "b")], now: start)
        #expect(keys == ["b", "a"])
        #expect(tail.floor == 10)
    }

    @Test func rowsReadAgainAreNotPassedOnAgain() {
        var tail = LedgerTail(after: 10)
        _ = tail.received([(11, "a")], now: start)
        #expect(tail.received([(11, "a"), (12, "b")], now: start + 0.25) == ["b"])
    }

    @Test func aRowThatCommitsBelowOneSeenIsPassedOnWithinTheWindow() {
        var tail = LedgerTail(after: 10)
        _ = tail.received([(12, "b")], now: start)
        #expect(tail.received([(11, "a"), (12, "b")], now: start + 1.9) == ["a"])
    }

    @Test func theFloorMovesPastRowsSeenLongEnoughAndWhatIsBelowItIsIgnored() {
        var tail = LedgerTail(after: 10)
        _ = tail.received([(12, "b")], now: start)
        _ = tail.received([(13, "c")], now: start + 1)
        #expect(tail.received([], now: start + LedgerTail.lateCommitSeconds) == [])
        #expect(tail.floor == 12)
        // Row 11 committed later than the window: not passed on (the page shows it when loaded).
        #expect(tail.received([(11, "a"), (13, "c"), (14, "d")], now: start + 2.5) == ["d"])
    }
}
