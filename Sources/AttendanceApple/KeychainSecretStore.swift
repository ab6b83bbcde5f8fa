#if canImport(Security) && os(iOS)
import AttendanceAppCore
import Foundation
import Security

/// The device token in the Keychain: this device only (not in backups restored elsewhere), and
/// readable after the first unlock, so iOS can relaunch the locked phone for a region event.
public struct KeychainSecretStore: SecretStore {
    public struct Failure: Error, CustomStringConvertible {
        public var operation: String
        public var status: OSStatus
        public var description: String {
            "Keychain \(operation) failed: \(SecCopyErrorMessageString(status, nil) as String? ?? "OSStatus \(status)")"
        }
    }

    public let service: String

    public init(service: String = "com.beaconattendance.device") { self.service = service }

    private func query(_ name: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: name]
    }

    public func read(_ name: String) throws -> String? {
        var query = query(name)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw Failure(operation: "read of \(name)", status: status) }
        return String(decoding: data, as: UTF8.self)
    }

    public func write(_ value: String, as name: String) throws {
        let attributes: [String: Any] = [kSecValueData as String: Data(value.utf8),
                                         kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly]
        var status = SecItemUpdate(query(name) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            status = SecItemAdd(query(name).merging(attributes) { $1 } as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw Failure(operation: "write of \(name)", status: status) }
    }

    public func delete(_ name: String) throws {
        let status = SecItemDelete(query(name) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Failure(operation: "delete of \(name)", status: status) }
    }
}
#endif
