import AttendanceRules
import Foundation

/// What a search box (`?q=`) finds among employees: a name containing every word typed (case and
/// accents ignored), an employee number or e-mail containing the text, or the id itself.
enum EmployeeSearch {
    static func matches(_ query: String, _ employee: EmployeeRecord) -> Bool {
        let words = folded(query).split(separator: " ").map(String.init)
        guard !words.isEmpty else { return true }
        let name = folded(employee.name)
        if words.allSatisfy({ name.contains($0) }) { return true }
        let text = folded(query)
        return employee.id.rawValue == query || (employee.externalId.map { folded($0).contains(text) } ?? false)
            || (employee.email.map { folded($0).contains(text) } ?? false)
    }

    static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .trimmingCharacters(in: .whitespaces)
    }
}
