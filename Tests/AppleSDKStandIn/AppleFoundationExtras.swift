// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
// Darwin-only Foundation API that the Linux Foundation lacks (stand-in limits, not our code).
@_exported import Foundation
@_exported import FoundationNetworking

extension URLSessionConfiguration {
    /// Darwin: `class func background(withIdentifier identifier: String) -> URLSessionConfiguration`
    public static func background(withIdentifier identifier: String) -> URLSessionConfiguration { .default }
    /// Darwin: `var sessionSendsLaunchEvents: Bool { get set }` (iOS only)
    public var sessionSendsLaunchEvents: Bool {
        get { false }
        set {}
    }
}
