import AttendanceServer
import AttendanceStorage
import Logging
import ServiceLifecycle

/// `--read-database`: a PostgreSQL hot standby for the heavy reads, and the most it may lag
/// before those reads go back to the primary.
public struct ReadStandby: Sendable {
    public var url: String
    public var maxLagSeconds: Double

    public init(url: String, maxLagSeconds: Double) {
        self.url = url
        self.maxLagSeconds = maxLagSeconds
    }
}

/// Follows the standby twice a second inside `attendance serve` (a ServiceLifecycle service beside
/// the HTTP server): the primary's log position, then the standby's, into the `ReadRoute`. An
/// outage of the standby is logged once; meanwhile every read goes to the primary.
struct StandbyFollower: Service {
    static let interval = Duration.milliseconds(500)
    let route: ReadRoute
    let primary: PostgresRepository
    let standby: PostgresRepository
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await repeatUntilCancelled(
                    every: Self.interval, logger: logger,
                    failure: "the read standby did not answer; heavy reads go to the primary",
                    recovery: "the read standby answers again; heavy reads go to it while it keeps up"
                ) {
                    try await route.follow(
                        primaryPosition: { try await primary.walPosition() },
                        standbyPosition: { try await standby.walPosition() })
                }
            }
        } catch is CancellationError {
            // Stopped with the server.
        }
    }
}
