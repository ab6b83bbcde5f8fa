import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel, with RFC 9112 §9.3's rule on persistence: a request that does not
/// ask to keep the connection (HTTP/1.0 without `Connection: keep-alive`, or any `Connection: close`)
/// is its connection's last. Hummingbird reads the rule from a `Connection: close` header only, and
/// the HTTP version is gone by the time it sees the request, so the head is marked while it is
/// still NIO's, right after decoding.
struct PersistentConnectionsChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let inner: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(
                type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(LastRequestMarker(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Adds `Connection: close` to the head of a request that is not keep-alive by NIO's reading of
/// its version and headers.
final class LastRequestMarker: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive,
              !head.headers["connection"].contains(where: { $0.lowercased() == "close" }) else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 that closes after a request that is not keep-alive (`PersistentConnectionsChannel`).
    static func http1ClosingWhenAsked(idleTimeout: TimeAmount) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            PersistentConnectionsChannel(
                inner: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)))
        }
    }
}
