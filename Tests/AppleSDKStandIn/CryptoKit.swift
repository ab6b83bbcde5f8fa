// Stand-in of the iOS 18 SDK surface that Sources/AttendanceApple uses, for a Swift 6 type-check on
// Linux (scripts/check-apple typecheck): declarations only, their signatures, Sendable and actor
// annotations as Apple documents them. Not a mock: nothing here runs. Limits: docs/ARCHITECTURE.md.
@_exported import Crypto
