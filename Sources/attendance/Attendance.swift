import ArgumentParser

@main
struct Attendance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendance",
        abstract: "Beacon Attendance: the attendance server, and the engine's replay tool.",
        subcommands: [Serve.self, Replay.self]
    )
}
