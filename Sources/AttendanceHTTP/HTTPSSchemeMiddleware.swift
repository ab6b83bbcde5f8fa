import Hummingbird

/// Marks every request `https` when this server terminates TLS itself (`--tls-cert`): Hummingbird
/// leaves the scheme unset, and the console sets its cookies `Secure` only on https requests.
struct HTTPSSchemeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var head = request.head
        head.scheme = "https"
        return try await next(Request(head: head, body: request.body), context)
    }
}
