// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
// Linux has no CoreFoundation bridging types for Swift; CF types are modelled by their
// toll-free-bridged Foundation classes.
@_exported import Foundation

public typealias OSStatus = Int32
public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFTypeRef = AnyObject

public var errSecSuccess: OSStatus { 0 }
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecDuplicateItem: OSStatus { -25299 }

public var kSecClass: CFString { "class" }
public var kSecClassGenericPassword: CFString { "genp" }
public var kSecAttrService: CFString { "svce" }
public var kSecAttrAccount: CFString { "acct" }
public var kSecReturnData: CFString { "r_Data" }
public var kSecMatchLimit: CFString { "m_Limit" }
public var kSecMatchLimitOne: CFString { "m_LimitOne" }
public var kSecValueData: CFString { "v_Data" }
public var kSecAttrAccessible: CFString { "pdmn" }
public var kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString { "cku" }

public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { 0 }
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { 0 }
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? { nil }
