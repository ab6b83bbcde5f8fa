import AttendanceSync
import Foundation

/// Where the device token lives: the Keychain on iOS (`KeychainSecretStore`, this device only,
/// after first unlock, so a relaunch in the background can read it), memory in tests.
public protocol SecretStore: Sendable {
    func read(_ name: String) throws -> String?
    func write(_ value: String, as name: String) throws
    func delete(_ name: String) throws
}

public final class InMemorySecretStore: SecretStore {
    private let values = Locked<[String: String]>([:])
    public init() {}
    public func read(_ name: String) throws -> String? { values.value[name] }
    public func write(_ value: String, as name: String) throws { values.withLock { $0[name] = value } }
    public func delete(_ name: String) throws { values.withLock { $0[name] = nil } }
}
