import AttendanceModels
import AttendanceRules
import Foundation

/// Authentication and enrollment storage, part of every repository implementation.
public protocol AuthRepository: Sendable {
    /// The secret named `name` that every server on this database shares: `candidate` when none
    /// was stored yet (the first server to ask stores its own; the others read it).
    func sharedSecret(name: String, candidate: String) async throws -> String
    /// Stores the admin token's hash unless one exists; returns whether it was stored.
    func installAdminToken(hash: String, now: Date) async throws -> Bool
    /// Makes `hash` the only admin token (a configured token replaces whatever was stored).
    func replaceAdminTokens(hash: String, now: Date) async throws
    func isAdminToken(hash: String) async throws -> Bool
    func createEnrollmentCode(
        hash: String, userId: UserID, expiresAt: Date, now: Date, audit: LedgerEvent?) async throws
    /// The code stored under `hash` (used or not), nil when none.
    func enrollmentCode(hash: String) async throws -> StoredEnrollmentCode?
    /// Marks the code used if it is known, unused and unexpired: atomically, so a code works once.
    func redeemEnrollmentCode(hash: String, now: Date) async throws -> CodeRedemption
    func createDevice(_ device: DeviceRecord, tokenHash: String, audit: LedgerEvent?) async throws
    /// The device holding this token, revoked or not; `lastSeenAt` is moved to `now`.
    /// The device a token belongs to (revoked ones too: the caller says why it refuses). Its
    /// `lastSeenAt` is written when it is older than `DeviceRecord.lastSeenResolution`, not on
    /// every request: a device's steady traffic costs no write.
    func device(tokenHash: String, now: Date) async throws -> DeviceRecord?
    func devices(userId: UserID?) async throws -> [DeviceRecord]
    /// Devices in use (not revoked, their employee not deactivated), and how many of them sent
    /// nothing after `since` (counted from enrollment for one that never sent anything).
    func deviceSilence(since: Date) async throws -> (inUse: Int, silent: Int)
    func revokeDevice(id: DeviceID, now: Date, audit: LedgerEvent?) async throws -> DeviceRecord?
    /// Keeps `state` unless the device's kept state was observed later (reports can arrive out of order).
    func saveDeviceState(_ state: DeviceState, device: DeviceID) async throws
}
