import Hummingbird
import NIOCore

/// The server's request context: Hummingbird's core, and the peer's address, which the console's
/// sign-in throttle keys on (behind a reverse proxy that is the proxy's address: docs/CONSOLE.md).
public struct AttendanceRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let peerAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
