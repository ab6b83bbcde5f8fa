import AttendanceModels
import Foundation
import Testing

@Suite struct KeyDerivationTests {
    let site = SiteBeacon(major: 7)
    let time = Date(timeIntervalSince1970: 1_795_338_000.5)

    @Test func sessionKeyIsDeterministicAndSensitiveToEveryInput() {
        let key = SessionKey.derive(user: "u1", device: "d1", site: site, checkIn: time)
        #expect(key == SessionKey.derive(user: "u1", device: "d1", site: site, checkIn: time))
        #expect(key.rawValue.hasPrefix("s-") && key.rawValue.count == 34)
        #expect(key != SessionKey.derive(user: "u2", device: "d1", site: site, checkIn: time))
        #expect(key != SessionKey.derive(user: "u1", device: "d2", site: site, checkIn: time))
        #expect(key != SessionKey.derive(user: "u1", device: "d1", site: SiteBeacon(major: 8), checkIn: time))
        #expect(key != SessionKey.derive(user: "u1", device: "d1", site: site, checkIn: time.addingTimeInterval(0.001)))
    }

    @Test func idempotencyKeyFollowsContentNotIdentityOfTheValue() {
        let key = SessionKey.derive(user: "u1", device: "d1", site: site, checkIn: time)
        let checkIn = AttendanceEvent(kind: .checkIn, userID: "u1", deviceID: "d1", site: site, sessionKey: key, timestamp: time, source: .automatic)
        var copy = checkIn
        copy.evidence = CheckInEvidence(sampleCount: 4, medianRSSI: -60, stdevDB: 1, walking: false, rule: "early")
        #expect(checkIn.idempotencyKey == copy.idempotencyKey)
        var checkOut = checkIn
        checkOut.kind = .checkOut
        #expect(checkIn.idempotencyKey != checkOut.idempotencyKey)
        var later = checkIn
        later.timestamp = time.addingTimeInterval(1)
        #expect(checkIn.idempotencyKey != later.idempotencyKey)
    }

    @Test func typedIdentifiersEncodeAsBareStrings() throws {
        let data = try JSONEncoder().encode(["user": UserID("alice")])
        #expect(String(decoding: data, as: UTF8.self) == #"{"user":"alice"}"#)
        #expect(try JSONDecoder().decode(UserID.self, from: Data(#""bob""#.utf8)) == "bob")
    }

    @Test func regionContainment() {
        let uuid = SiteBeacon.defaultUUID
        #expect(BeaconRegion(uuid: uuid).contains(SiteBeacon(major: 3)))
        #expect(BeaconRegion(uuid: uuid, major: 3).contains(SiteBeacon(major: 3)))
        #expect(!BeaconRegion(uuid: uuid, major: 4).contains(SiteBeacon(major: 3)))
        #expect(!BeaconRegion(uuid: UUID()).contains(SiteBeacon(major: 3)))
    }
}
