import HTTPTypes
import Hummingbird

/// Marks every request `https` when this server terminates TLS itself (`--tls-cert`): Hummingbird
/// leaves the scheme unset, and the console sets its cookies `Secure` only on https requests. Every
/// answer tells the browser to use https only for a year (HSTS).
struct HTTPSSchemeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var head = request.head
        head.scheme = "https"
        var response = try await next(Request(head: head, body: request.body), context)
        response.headers[Self.strictTransportSecurity] = "max-age=31536000"
        return response
    }

    static var strictTransportSecurity: HTTPField.Name { HTTPField.Name("Strict-Transport-Security")! }
}
