import Foundation

extension Engine {
    /// Restores a snapshot written by this version or an earlier one. A configuration key added
    /// since the snapshot was written takes its default (the engine's other new fields are
    /// optional for the same reason): an app update must never strand the state, and with it the
    /// open session, of the version before it.
    public static func restore(from snapshot: Data) throws -> Engine {
        do {
            return try JSONDecoder().decode(Engine.self, from: snapshot)
        } catch DecodingError.keyNotFound(_, let context)
                    where context.codingPath.first?.stringValue == "configuration" {
            guard var object = try JSONSerialization.jsonObject(with: snapshot) as? [String: Any],
                  let stored = object["configuration"] as? [String: Any] else {
                let problem = "the snapshot's configuration is not a JSON object"
                throw DecodingError.dataCorrupted(.init(codingPath: context.codingPath, debugDescription: problem))
            }
            object["configuration"] = try Configuration.overDefaults(stored)
            return try JSONDecoder().decode(Engine.self, from: JSONSerialization.data(withJSONObject: object))
        }
    }
}
