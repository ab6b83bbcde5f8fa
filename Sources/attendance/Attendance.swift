import ArgumentParser

@main
struct Attendance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendance",
        abstract: "Beacon Attendance: the engine's replay tool (and, as they land, the server and the simulator).",
        subcommands: [Replay.self]
    )
}
