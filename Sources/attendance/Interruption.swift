import Dispatch
import Foundation

/// Ends a long command at Ctrl-C (SIGINT) or SIGTERM, saying so on standard error, with the
/// shell's status for a signal (128 + its number).
///
/// `simulate` runs its server in the process, in a service group that takes both signals for the
/// server's own graceful shutdown: without this the signal stopped the server and the phones ran
/// on, so neither Ctrl-C nor `kill` ended the run.
final class Interruption {
    private let sources: [any DispatchSourceSignal]

    /// Watches SIGINT and SIGTERM until the value is released; `consequence` says what the user
    /// has not got ("no report was written").
    init(_ command: String, consequence: String) {
        sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let name = number == SIGINT ? "SIGINT" : "SIGTERM"
                let line = "\nattendance \(command): stopped by \(name); \(consequence)\n"
                FileHandle.standardError.write(Data(line.utf8))
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
