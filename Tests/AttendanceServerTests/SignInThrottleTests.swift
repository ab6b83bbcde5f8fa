import Foundation
import Testing

import AttendanceRules

/// `SignInThrottle`, one test per transition: free failures, the backoff's doubling, a success,
/// the per-address limit across accounts, and forgetting.
@Suite struct SignInThrottleTests {
    let start = Date(timeIntervalSince1970: 1_795_338_000)

    func failing(_ throttle: inout SignInThrottle, _ email: String, _ address: String, times: Int, at: Date) {
        for _ in 0..<times { throttle.recordFailure(email: email, address: address, now: at) }
    }

    @Test func theFreeFailuresCostNothing() {
        var throttle = SignInThrottle()
        failing(&throttle, "a@x.io", "10.0.0.1", times: 4, at: start)
        #expect(throttle.check(email: "a@x.io", address: "10.0.0.1", now: start) == .allowed)
    }

    @Test func theSixthFailureWaitsOneSecondThenEachDoubles() {
        var throttle = SignInThrottle()
        failing(&throttle, "a@x.io", "10.0.0.1", times: 5, at: start)
        #expect(
            throttle.check(email: "A@x.io", address: "10.0.0.2", now: start)
                == .wait(until: start + 1, becauseOf: .account("a@x.io")))
        #expect(throttle.check(email: "a@x.io", address: "10.0.0.2", now: start + 1) == .allowed)
        failing(&throttle, "a@x.io", "10.0.0.1", times: 1, at: start + 1)
        #expect(
            throttle.check(email: "a@x.io", address: "10.0.0.2", now: start + 2)
                == .wait(until: start + 3, becauseOf: .account("a@x.io")))
    }

    @Test func theWaitIsCapped() {
        var throttle = SignInThrottle()
        failing(&throttle, "a@x.io", "10.0.0.1", times: 40, at: start)
        #expect(
            throttle.check(email: "a@x.io", address: "10.0.0.9", now: start)
                == .wait(until: start + 900, becauseOf: .account("a@x.io")))
    }

    @Test func aSuccessClearsTheAccountButNotTheAddress() {
        var throttle = SignInThrottle()
        failing(&throttle, "a@x.io", "10.0.0.1", times: 25, at: start)
        throttle.recordSuccess(email: "a@x.io")
        #expect(throttle.check(email: "a@x.io", address: "10.0.0.2", now: start + 1) == .allowed)
        #expect(throttle.check(email: "b@x.io", address: "10.0.0.1", now: start + 1) != .allowed)
    }

    @Test func oneAddressTryingManyAccountsIsThrottled() {
        var throttle = SignInThrottle()
        for index in 0..<20 { throttle.recordFailure(email: "user\(index)@x.io", address: "10.0.0.1", now: start) }
        #expect(
            throttle.check(email: "new@x.io", address: "10.0.0.1", now: start)
                == .wait(until: start + 1, becauseOf: .address("10.0.0.1")))
        #expect(throttle.check(email: "new@x.io", address: "10.0.0.2", now: start) == .allowed)
    }

    @Test func anAttemptIsCountedBeforeItIsCheckedAndGivenBackWhenRight() {
        var throttle = SignInThrottle()
        // Five attempts under way at once: the sixth is refused before any of them is checked.
        for _ in 0..<5 { #expect(throttle.begin(email: "a@x.io", address: "10.0.0.1", now: start) == .allowed) }
        #expect(throttle.begin(email: "a@x.io", address: "10.0.0.1", now: start) != .allowed)
        throttle.succeeded(email: "a@x.io", address: "10.0.0.1")
        #expect(throttle.check(email: "a@x.io", address: "10.0.0.1", now: start) == .allowed)
        // A right password from an address gives back only its own count there.
        var office = SignInThrottle()
        for index in 0..<19 { office.recordFailure(email: "u\(index)@x.io", address: "10.0.0.9", now: start) }
        #expect(office.begin(email: "b@x.io", address: "10.0.0.9", now: start) == .allowed)
        office.succeeded(email: "b@x.io", address: "10.0.0.9")
        #expect(office.begin(email: "c@x.io", address: "10.0.0.9", now: start) == .allowed)
    }

    @Test func failuresOlderThanAnHourStartTheCountAgain() {
        var throttle = SignInThrottle()
        failing(&throttle, "a@x.io", "10.0.0.1", times: 8, at: start)
        failing(&throttle, "a@x.io", "10.0.0.1", times: 1, at: start + 3_600)
        #expect(throttle.check(email: "a@x.io", address: "10.0.0.1", now: start + 3_600) == .allowed)
    }
}
