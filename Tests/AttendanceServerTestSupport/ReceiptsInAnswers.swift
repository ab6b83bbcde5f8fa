import Foundation

/// A device event's answer seen apart from its ledger receipts (LEDGER.md, "Receipts"). The
/// stored answer is replayed byte for byte, and the receipt added to it is the same in every
/// answer that has one; but an answer whose row was not in the tree within the receipt wait (a
/// loaded machine) has none, and a later replay of it then has it.
public enum ReceiptsInAnswers {
    /// The answer's JSON object without `receipt` (one event) or `receipts` (a batch), as
    /// canonical text; the body as text when it is not a JSON object.
    public static func withoutReceipts(_ body: Data) -> String {
        guard var object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return String(decoding: body, as: UTF8.self)
        }
        object["receipt"] = nil
        object["receipts"] = nil
        return canonical(object)
    }

    /// Every receipt the answer carries, each as canonical text.
    public static func receipts(_ body: Data) -> Set<String> {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [] }
        var found = Set<String>()
        if let receipt = object["receipt"] as? [String: Any] { found.insert(canonical(receipt)) }
        for receipt in object["receipts"] as? [[String: Any]] ?? [] { found.insert(canonical(receipt)) }
        return found
    }

    /// Whether `replay` is `first` replayed: the same bytes, or the same answer carrying every
    /// receipt `first` had and those it lacked.
    public static func isReplay(_ replay: Data, of first: Data) -> Bool {
        replay == first
            || (withoutReceipts(replay) == withoutReceipts(first) && receipts(first).isSubset(of: receipts(replay)))
    }

    static func canonical(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
