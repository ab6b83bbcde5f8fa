import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

@Suite struct AuthServiceTests {
    final class Clock: @unchecked Sendable {
        // @unchecked: the tests set it between calls, never concurrently.
        var now = Date(timeIntervalSince1970: 1_795_338_000)
    }

    func setup(_ backend: Backend) async throws -> (AuthService, any ServerRepository, Clock) {
        let repository = try await backend.makeRepository()
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        let clock = Clock()
        return (AuthService(repository: repository, environment: .clock({ clock.now })), repository, clock)
    }

    func kind(_ body: () async throws -> Void) async -> DomainError.Kind? {
        do {
            try await body()
            return nil
        } catch let problem as DomainError { return problem.kind } catch {
            Issue.record("not a DomainError: \(error)")
            return nil
        }
    }

    @Test(arguments: Backend.allCases) func theFirstStartCreatesAnAdminTokenPrintedOnce(backend: Backend) async throws {
        let (auth, repository, _) = try await setup(backend)
        defer { repository.shutdown() }
        let token = try #require(try await auth.installAdminToken(configured: nil))
        #expect(token.count == 43)
        #expect(try await auth.installAdminToken(configured: nil) == nil)  // the second start prints nothing
        #expect(try await auth.authenticate(authorization: "Bearer \(token)") == .admin)
        #expect(try await repository.isAdminToken(hash: token) == false)  // only the hash is stored
    }

    @Test(arguments: Backend.allCases) func aConfiguredAdminTokenIsTheAdminToken(backend: Backend) async throws {
        let (auth, repository, _) = try await setup(backend)
        defer { repository.shutdown() }
        #expect(try await auth.installAdminToken(configured: "a-long-enough-admin-token") == nil)
        #expect(try await auth.authenticate(authorization: "bearer a-long-enough-admin-token") == .admin)
        #expect(await kind { _ = try await auth.installAdminToken(configured: "short") } == .invalid)
        // Rotating the variable rotates the token: the old one stops working.
        #expect(try await auth.installAdminToken(configured: "another-long-admin-token") == nil)
        #expect(try await auth.authenticate(authorization: "Bearer another-long-admin-token") == .admin)
        #expect(
            await kind { _ = try await auth.authenticate(authorization: "Bearer a-long-enough-admin-token") }
                == .unauthenticated)
        // Without the variable, a later start keeps the configured token and prints nothing.
        #expect(try await auth.installAdminToken(configured: nil) == nil)
        #expect(try await auth.authenticate(authorization: "Bearer another-long-admin-token") == .admin)
    }

    @Test(arguments: Backend.allCases) func missingOrUnknownTokensAre401(backend: Backend) async throws {
        let (auth, repository, _) = try await setup(backend)
        defer { repository.shutdown() }
        #expect(await kind { _ = try await auth.authenticate(authorization: nil) } == .unauthenticated)
        #expect(await kind { _ = try await auth.authenticate(authorization: "Basic abc") } == .unauthenticated)
        #expect(await kind { _ = try await auth.authenticate(authorization: "Bearer nope") } == .unauthenticated)
    }

    @Test(arguments: Backend.allCases) func aCodeEnrollsOneDeviceOnceBeforeItExpires(backend: Backend) async throws {
        let (auth, repository, clock) = try await setup(backend)
        defer { repository.shutdown() }
        let (code, expiresAt) = try await auth.issueEnrollmentCode(for: "alice", validForSeconds: 600)
        #expect(expiresAt == clock.now.addingTimeInterval(600))
        #expect(code.count == 11 && code.contains("-"))
        // Typed by a person: lower case, without the dash.
        let (device, token) = try await auth.enroll(
            code: code.lowercased().replacingOccurrences(of: "-", with: ""), platform: "ios",
            deviceName: "Alice's iPhone")
        #expect(device.userId == "alice")
        #expect(try await auth.authenticate(authorization: "Bearer \(token)") == .device(device.id, user: "alice"))
        #expect(await kind { _ = try await auth.enroll(code: code, platform: "ios", deviceName: nil) } == .gone)

        let (late, _) = try await auth.issueEnrollmentCode(for: "alice", validForSeconds: 60)
        clock.now = clock.now.addingTimeInterval(61)
        #expect(await kind { _ = try await auth.enroll(code: late, platform: "ios", deviceName: nil) } == .gone)
        #expect(
            await kind { _ = try await auth.enroll(code: "NOPE0-NOPE0", platform: "ios", deviceName: nil) }
                == .unprocessable)
        #expect(await kind { _ = try await auth.issueEnrollmentCode(for: "nobody") } == .notFound)
        #expect(await kind { _ = try await auth.issueEnrollmentCode(for: "alice", validForSeconds: 10) } == .invalid)
    }

    /// One code is valid per person: a new one ends the unused ones issued before it.
    @Test(arguments: Backend.allCases) func aNewCodeEndsThePersonsEarlierOnes(backend: Backend) async throws {
        let (auth, repository, _) = try await setup(backend)
        defer { repository.shutdown() }
        let (first, _) = try await auth.issueEnrollmentCode(for: "alice", validForSeconds: 3_600)
        let (second, _) = try await auth.issueEnrollmentCode(for: "alice", validForSeconds: 3_600)
        #expect(await kind { _ = try await auth.enroll(code: first, platform: "ios", deviceName: nil) } == .gone)
        let (device, _) = try await auth.enroll(code: second, platform: "ios", deviceName: nil, appVersion: "2.4.0")
        #expect(device.userId == "alice")
        // The app's version it enrolled with is kept (the console's Devices page shows it).
        #expect(try await repository.devices(userId: "alice").first?.appVersion == "2.4.0")
    }

    @Test(arguments: Backend.allCases) func aRevokedDeviceIsRefusedFromItsNextRequest(backend: Backend) async throws {
        let (auth, repository, _) = try await setup(backend)
        defer { repository.shutdown() }
        let (code, _) = try await auth.issueEnrollmentCode(for: "alice")
        let (device, token) = try await auth.enroll(code: code, platform: "ios", deviceName: nil)
        #expect(try await auth.authenticate(authorization: "Bearer \(token)") == .device(device.id, user: "alice"))
        let revoked = try #require(
            try await repository.revokeDevice(
                id: device.id, now: Date(timeIntervalSince1970: 1_795_338_100), audit: nil))
        #expect(revoked.revokedAt != nil)
        #expect(await kind { _ = try await auth.authenticate(authorization: "Bearer \(token)") } == .unauthenticated)
        #expect(try await repository.devices(userId: "alice").map(\.id) == [device.id])
        #expect(try await repository.devices(userId: "alice").first?.lastSeenAt != nil)
    }

    @Test(arguments: Backend.allCases) func lastSeenIsKeptToTheMinuteWithoutAWritePerRequest(backend: Backend)
        async throws
    {
        let (auth, repository, clock) = try await setup(backend)
        defer { repository.shutdown() }
        let (code, _) = try await auth.issueEnrollmentCode(for: "alice")
        let (_, token) = try await auth.enroll(code: code, platform: "ios", deviceName: nil)
        let first = clock.now
        _ = try await auth.authenticate(authorization: "Bearer \(token)")
        #expect(try await repository.devices(userId: "alice").first?.lastSeenAt == first)
        clock.now = first.addingTimeInterval(30)
        _ = try await auth.authenticate(authorization: "Bearer \(token)")
        #expect(try await repository.devices(userId: "alice").first?.lastSeenAt == first)
        clock.now = first.addingTimeInterval(75)
        _ = try await auth.authenticate(authorization: "Bearer \(token)")
        #expect(try await repository.devices(userId: "alice").first?.lastSeenAt == first.addingTimeInterval(75))
    }
}
