/// A failure caused by the command's input (a bad file, a malformed row): printed as
/// `Error: …` with exit status 1, without the usage text a mistyped option gets.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
