import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

/// `devices_in_use` and `devices_silent` (docs/SERVER.md, Operations): which phones count, and
/// when one is silent, on both backends.
@Suite struct DeviceSilenceTests {
    @Test(arguments: Backend.allCases) func aPhoneIsSilentAfterAWeekWithoutAWordAndRevokedOnesDontCount(
        backend: Backend
    ) async throws {
        let repository = try await backend.makeRepository()
        defer { repository.shutdown() }
        let now = Date()
        let day: TimeInterval = 86_400
        for id in ["ada", "bob", "cy"] { try await repository.createEmployee(EmployeeRecord(id: UserID(id), name: id)) }
        let phones: [(id: String, user: String, enrolled: TimeInterval, seen: TimeInterval?)] = [
            ("talks", "ada", -30, -1),  // seen yesterday
            ("quiet", "ada", -30, -8),  // last seen 8 days ago
            ("never", "bob", -9, nil),  // enrolled 9 days ago, never heard from
            ("new", "bob", -2, nil),  // enrolled 2 days ago: not silent yet
            ("revoked", "cy", -30, -20),
            ("gone", "cy", -30, -20),  // its employee is deactivated below
        ]
        for phone in phones {
            let device = DeviceRecord(
                id: DeviceID(phone.id), userId: UserID(phone.user), platform: "ios", deviceName: nil,
                enrolledAt: now.addingTimeInterval(phone.enrolled * day), lastSeenAt: nil, revokedAt: nil)
            try await repository.createDevice(device, tokenHash: "hash-\(phone.id)", audit: nil)
            if let seen = phone.seen {
                _ = try await repository.device(tokenHash: "hash-\(phone.id)", now: now.addingTimeInterval(seen * day))
            }
        }
        _ = try await repository.revokeDevice(id: "revoked", now: now, audit: nil)
        let service = DeviceStateService(repository: repository, environment: .clock({ now }))
        #expect(try await service.silence() == (inUse: 6 - 1, silent: 3))
        _ = try await repository.deactivateEmployee(id: "cy", now: now, audit: nil)
        let after = try await service.silence()
        #expect(after.inUse == 4 && after.silent == 2)
    }
}
