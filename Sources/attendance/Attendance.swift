import ArgumentParser

@main
struct Attendance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attendance",
        abstract: "Beacon Attendance: the attendance server, the engine's replay tool and the field-test simulator.",
        subcommands: [
            Serve.self, Accounts.self, Ledger.self, Witness.self, Timesheets.self, Backup.self, Restore.self,
            Replay.self, Simulate.self, RadioCheck.self, SurveyWorld.self,
        ]
    )
}
