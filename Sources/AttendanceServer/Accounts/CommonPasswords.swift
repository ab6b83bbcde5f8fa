import AttendanceRules
import Foundation

/// The bundled list of the 30,000 most common passwords (zxcvbn's, `Resources/common-passwords.txt`
/// with its licence beside it), read once.
enum CommonPasswords {
    static let strength = PasswordStrength(common: list)

    static let list: Set<String> = {
        guard let url = Bundle.module.url(forResource: "common-passwords", withExtension: "txt"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else {
            // The bundle ships with the binary; without it every check would pass, so stop loudly.
            fatalError("AttendanceServer's resource common-passwords.txt is missing beside the binary")
        }
        return Set(text.split(separator: "\n").map { $0.lowercased() })
    }()
}
