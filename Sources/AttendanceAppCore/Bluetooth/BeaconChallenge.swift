import AttendanceModels
import Foundation

/// The optional GATT challenge–response that tells a site's real beacon from a cloned
/// advertisement (iBeacon frames carry no secret and are trivially copied).
///
/// The phone writes a fresh 16-byte nonce to the beacon's challenge characteristic; the beacon
/// answers HMAC-SHA256(site key, message) with the message below. The phone checks the answer
/// against the key from the Keychain, and gives up after `timeoutSeconds` (a connection costs
/// battery and background time; the ranging decision never waits for it).
public struct BeaconChallenge: Hashable, Sendable {
    public static let timeoutSeconds = 3.0
    public static let nonceLength = 16
    /// Versions the message layout, so beacon firmware and app can change it together.
    static let domain = Array("BA-CHALLENGE-1".utf8)

    public enum Outcome: Hashable, Sendable {
        case verified
        case mismatch
        case timedOut
        /// No connection, no service, Bluetooth off, or no key for the site.
        case unavailable(String)
    }

    public let beacon: BeaconIdentity
    public let nonce: [UInt8]
    public let startedAt: Date

    public init<Generator: RandomNumberGenerator>(beacon: BeaconIdentity, at time: Date, using generator: inout Generator) {
        self.beacon = beacon
        nonce = (0..<Self.nonceLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        startedAt = time
    }

    public init(beacon: BeaconIdentity, nonce: [UInt8], at time: Date) {
        self.beacon = beacon
        self.nonce = nonce
        startedAt = time
    }

    /// domain ‖ nonce ‖ UUID (16 bytes) ‖ major (big-endian) ‖ minor (big-endian): binding the
    /// answer to this beacon, so a response relayed from another site does not verify.
    public var message: [UInt8] {
        let uuid = beacon.uuid.uuid
        let uuidBytes = [uuid.0, uuid.1, uuid.2, uuid.3, uuid.4, uuid.5, uuid.6, uuid.7,
                         uuid.8, uuid.9, uuid.10, uuid.11, uuid.12, uuid.13, uuid.14, uuid.15]
        return Self.domain + nonce + uuidBytes + [UInt8(beacon.major >> 8), UInt8(beacon.major & 0xff),
                                                   UInt8(beacon.minor >> 8), UInt8(beacon.minor & 0xff)]
    }

    /// What the beacon should answer, given the site key.
    public func expectedResponse(key: [UInt8]) -> [UInt8] { HMACSHA256.authenticationCode(key: key, message: message) }

    /// Judges the beacon's answer (nil: none came) received at `time`.
    public func outcome(response: [UInt8]?, key: [UInt8]?, at time: Date) -> Outcome {
        guard let key, !key.isEmpty else { return .unavailable("no shared key for site \(beacon.major) in the Keychain") }
        guard time.timeIntervalSince(startedAt) <= Self.timeoutSeconds, let response else { return .timedOut }
        return HMACSHA256.constantTimeEqual(response, expectedResponse(key: key)) ? .verified : .mismatch
    }
}
