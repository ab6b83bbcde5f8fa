import AttendanceServer
import Hummingbird

/// After a write that can change the directory (the admin API, the console, enrollment: every
/// method but GET and HEAD, outside the devices' attendance events), reads the directory version
/// again before answering. A change made through this process is then seen by its own caches from
/// its next request; other replicas see it within `DirectoryWatch.trustSeconds`.
struct DirectoryRefreshMiddleware<Context: RequestContext>: RouterMiddleware {
    let watch: DirectoryWatch

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.method != .get, request.method != .head, !request.uri.path.hasPrefix("/v1/attendance/") else {
            return try await next(request, context)
        }
        do {
            let response = try await next(request, context)
            await refresh()
            return response
        } catch {
            await refresh()
            throw error
        }
    }

    /// A failed read leaves the last one, which stops vouching within `trustSeconds`.
    private func refresh() async {
        try? await watch.poll()
    }
}
