import AttendanceModels
import Foundation

/// What an employee's fields must be, wherever they come from (the API, the console, an import).
public enum EmployeeRules {
    /// The employee `id` with these fields, the name trimmed; a refusal names the field.
    public static func validated(id: UserID, name: String, externalId: String?, email: String?) throws
        -> EmployeeRecord
    {
        try InputRules.text("name", name, maxLength: InputRules.maxNameLength, allowEmpty: false)
        if let externalId {
            try InputRules.text("externalId", externalId, maxLength: InputRules.maxNameLength, allowEmpty: false)
        }
        if let email { try InputRules.text("email", email, maxLength: 254) }
        if let email, !email.contains("@") { throw DomainError.field("email", email, expected: "an e-mail address") }
        return EmployeeRecord(
            id: id, name: name.trimmingCharacters(in: .whitespaces), externalId: externalId, email: email)
    }
}
