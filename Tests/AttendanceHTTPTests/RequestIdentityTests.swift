import AttendanceModels
import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

@testable import AttendanceHTTP

/// A request's identity is what an idempotency key was stored with; a server upgrade must not
/// change it, or a phone's resend after the upgrade would be refused (422) instead of replayed.
/// The digests below were written by the release before the server's one mapping (`6511ba4`,
/// whose hand-written mirrors re-encoded each body): its `attendance serve` answered these bodies
/// and the digests were read from its `idempotencyKeys` table.
@Suite struct RequestIdentityTests {
    static let ts = "2026-11-22T10:55:00+02:00"
    static let checkIn = #"""
        {"userId": "alice", "siteId": "hq", "beacon": {"uuid": "FDA50693-0000-0000-0000-290995101092", "major": 1},
         "ts": "2026-11-22T10:55:00+02:00", "sessionKey": "s-golden", "source": "automatic", "reason": "arrived/entered",
         "deviceMeta": {"deviceId": "d", "platform": "ios", "appVersion": "1.2"},
         "evidence": {"sampleCount": 12, "medianRSSI": -71.5, "stdevDB": 2.25, "walking": false, "rule": "strongMedian"}}
        """#
    static let checkOut = #"{"sessionKey": "s-golden", "ts": "\#(ts)", "reason": "regionExit", "source": "manual"}"#
    static let heartbeat = #"{"sessionKey": "s-golden", "ts": "\#(ts)"}"#

    @Test func singleRequestsKeepTheIdentityTheEarlierReleaseStored() throws {
        let checkIn = try IngestService.request(.checkIn, json: Data(Self.checkIn.utf8))
        #expect(checkIn.identity == "6588d541bac9461b4bab3f6922a81af38c9bd7f3e3c396b9e85c5eb7551f62dd")
        let checkOut = try IngestService.request(.checkOut, json: Data(Self.checkOut.utf8))
        #expect(checkOut.identity == "8782192de5f23dadb3e4a6b2665dff4c742fa2fba541eac128ceddfc8c0b92da")
        let heartbeat = try IngestService.request(.heartbeat, json: Data(Self.heartbeat.utf8))
        #expect(heartbeat.identity == "9bc1af7567510eff186a674476ba0d3084d6983edbb856eb72df501ce1b49fb8")
    }

    @Test func aBatchAndItsItemsKeepTheIdentityTheEarlierReleaseStored() throws {
        let body =
            #"{"events": [{"idempotencyKey": "golden-b1", "type": "heartbeat", "heartbeat": \#(Self.heartbeat)}]}"#
        let batch = try DeviceRequestMapping.batch(
            try Wire.decode(Components.Schemas.EventBatchRequest.self, from: Data(body.utf8)))
        #expect(batch.identity == "27d945b786b7d6aece5f46488845a706cc939409876531d1036a6d217753b0c1")
        guard case .request(let key, let item)? = batch.items.first else {
            Issue.record("the item was refused: \(batch.items)")
            return
        }
        #expect(key == "golden-b1")
        // An item is the same request as the single endpoint's body it carries.
        #expect(item.identity == "9bc1af7567510eff186a674476ba0d3084d6983edbb856eb72df501ce1b49fb8")
    }

    @Test func keyOrderSpacingAndTheTimesOffsetAreNotAnotherPayload() throws {
        let reordered =
            #"{ "source":"manual","reason":"regionExit",  "ts":"2026-11-22T08:55:00Z","sessionKey":"s-golden"}"#
        let first = try IngestService.request(.checkOut, json: Data(Self.checkOut.utf8))
        #expect(try IngestService.request(.checkOut, json: Data(reordered.utf8)).identity == first.identity)
        let later = reordered.replacingOccurrences(of: "08:55:00Z", with: "08:55:01Z")
        #expect(try IngestService.request(.checkOut, json: Data(later.utf8)).identity != first.identity)
    }

    @Test func aBatchItemWithoutItsPayloadIsRefusedNamingTheField() throws {
        let body = #"{"events": [{"idempotencyKey": "k", "type": "checkIn", "checkIn": {"userId": "alice"}}]}"#
        let batch = try DeviceRequestMapping.batch(
            try Wire.decode(Components.Schemas.EventBatchRequest.self, from: Data(body.utf8)))
        guard case .refused(let key, let problem)? = batch.items.first else {
            Issue.record("the item was not refused: \(batch.items)")
            return
        }
        #expect(key == "k")
        #expect(problem.kind == .invalid)
        #expect(problem.detail == "'events[0].checkIn.beacon' is missing; expected the site's beacon {uuid, major}")
    }
}
