import AttendanceRules

/// Many items handled as they would be one by one: each on its own (its own transaction and audit
/// row); one that is refused is named with why, and the others still go through.
struct Bulk<Result> {
    var done: [Result] = []
    var failed: [String] = []

    /// ` Not <what>: a: why; b: why`, or nothing when every item went through: `sentence` makes
    /// the translated sentence of the list (`{ viewer.t("Not decided: %@", $0) }`).
    func failures(_ sentence: (String) -> String) -> String {
        failed.isEmpty ? "" : " " + sentence(failed.joined(separator: "; "))
    }

    static func each<Item>(
        _ items: [Item], name: (Item) -> String, _ body: (Item) async throws -> Result
    ) async throws -> Bulk {
        var bulk = Bulk()
        for item in items {
            do {
                bulk.done.append(try await body(item))
            } catch let error as DomainError {
                bulk.failed.append("\(Bidi.isolated(name(item))): \(error.detail)")
            }
        }
        return bulk
    }
}

extension FormData {
    /// The ticked `id`s of a list's bulk form: at least one, at most 500.
    func ticked(_ noun: String) throws -> [String] {
        let ids = all("id")
        guard !ids.isEmpty else { throw DomainError.field("id", nil, expected: "at least one \(noun) ticked") }
        guard ids.count <= 500 else {
            throw DomainError.field("id", "\(ids.count) ticked", expected: "at most 500 at once")
        }
        return ids
    }
}
