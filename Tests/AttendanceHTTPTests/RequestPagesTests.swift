import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

/// Requests read a page at a time (`RequestService.page`): the pages together hold every request
/// the scope may see, newest first, each once; a manager's pages hold exactly what `visible`
/// lets them see (the storage's site filter states the same rule).
@Suite struct RequestPagesTests {
    @Test(arguments: Backend.allCases) func pagesHoldEveryVisibleRequestOnce(backend: Backend) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let (ada, bob) = try await live.adaAndBobOnTwoSites()
        let hour = Date().addingTimeInterval(-7_200)
        var bodies: [(LiveServer.Enrolled, [String: Any])] = []
        for n in 0..<3 {
            bodies.append(
                (ada, ["sessionKey": "s-ada", "reason": "correction \(n)", "checkOutAt": RFC3339Text.format(hour)]))
        }
        // A session Ada missed at Bob's site: about that site, not hers.
        bodies.append(
            (
                ada,
                [
                    "siteId": bob.siteId, "reason": "at the other site",
                    "checkInAt": RFC3339Text.format(hour.addingTimeInterval(-3_600)),
                    "checkOutAt": RFC3339Text.format(hour),
                ]
            ))
        for n in 0..<2 {
            bodies.append((bob, ["sessionKey": "s-bob", "reason": "bob \(n)", "checkOutAt": RFC3339Text.format(hour)]))
        }
        for (who, body) in bodies {
            let answer = try await live.send("POST", "/v1/me/requests", token: who.token, json: body)
            #expect(answer.status == 201, "\(answer.text)")
        }
        let service = RequestService(repository: live.repository, environment: .live)
        for scope in [SiteScope.all, .only([SiteID(ada.siteId)]), .only([SiteID(bob.siteId)]), .only([])] {
            var paged: [CorrectionRequestID] = []
            var before: RequestCursor?
            var pages = 0
            repeat {
                let page = try await service.page(userId: nil, state: nil, scope: scope, before: before, limit: 2)
                paged += page.items.map(\.id)
                before = page.next
                pages += 1
            } while before != nil && pages < 10
            let all = try await service.list(userId: nil, state: nil, scope: .all)
            var expected: [CorrectionRequestID] = []
            for request in all where try await service.visible(request, to: scope) { expected.append(request.id) }
            #expect(paged == expected, "\(scope)")
            #expect(Set(paged).count == paged.count, "each once")
        }
        #expect(try await service.list(userId: nil, state: nil, scope: .only([SiteID(ada.siteId)])).count == 3)
        #expect(try await service.list(userId: nil, state: nil, scope: .only([SiteID(bob.siteId)])).count == 3)
        try await live.stop()
    }
}
