import Foundation

extension Engine {
    /// Restores a snapshot written by this version or an earlier one. A configuration key added
    /// since the snapshot was written takes its default (`Configuration.init(from:)`; the engine's
    /// other new fields are optional for the same reason): an app update must never strand the
    /// state, and with it the open session, of the version before it.
    public static func restore(from snapshot: Data) throws -> Engine {
        try JSONDecoder().decode(Engine.self, from: snapshot)
    }
}
