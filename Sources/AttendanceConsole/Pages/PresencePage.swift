import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird
import ServiceLifecycle

/// On site now: who is in at each site the viewer may see, since when and how sure, kept live by
/// `/console/events`.
extension Console {
    func registerPresence(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "presence",
            use: signedIn("presence", needs: .readPresence) { _, _, viewer, form in
                return page("presence", title: viewer.t("On site now"), viewer: viewer, try await presenceData(viewer))
            })
        console.get(
            "events",
            use: signedIn("events", needs: .readPresence) { request, _, viewer, form in
                let after = form["after"].flatMap { UInt64($0) } ?? hub.sequence
                let listener = PresenceHub.Viewer(
                    scope: viewer.scope, accountId: viewer.account.id, expiresAt: viewer.session.expiresAt)
                guard hub.streams(of: viewer.account.id) < PresenceHub.streamsPerAccount else {
                    throw Problem(
                        429, "Too many live pages",
                        viewer.t(
                            "this account has %@ live pages open; close some and reload",
                            viewer.words.number(PresenceHub.streamsPerAccount)),
                        retryAfterSeconds: 30)
                }
                return events(for: listener, after: after)
            })
    }

    func presenceData(_ viewer: Viewer) async throws -> [String: Any] {
        // Read before the sessions: a change after this number is replayed to the page's stream.
        let after = hub.sequence
        let now = environment.now()
        let sites = try await services.repository.sites().filter { $0.isActive && viewer.scope.permits($0.id) }
        let open = try await services.admin.presence(siteId: nil, scope: viewer.scope)
        let devices = Dictionary(
            try await services.repository.devices(userId: nil).map { ($0.id, $0.lastSeenAt) },
            uniquingKeysWith: { first, _ in first })
        let bySite = Dictionary(grouping: open, by: \.session.siteId)
        let sections: [[String: Any]] = sites.map { site in
            let rows: [[String: Any]] = (bySite[site.id] ?? [])
                .sorted { ($0.name ?? "", $0.session.checkInAt) < ($1.name ?? "", $1.session.checkInAt) }
                .map { entry in
                    let confidence = PresenceConfidence.of(
                        sessionLastSeen: entry.session.lastSeenAt,
                        deviceLastSeen: entry.session.deviceId.flatMap { devices[$0] ?? nil }, now: now)
                    return [
                        "session": entry.session.sessionKey.rawValue, "user": entry.session.userId.rawValue,
                        "name": entry.name ?? entry.session.userId.rawValue,
                        "since": LocalTime.plain(entry.session.checkInAt, zone: site.timeZone, in: viewer.language),
                        "lastHeard": LocalTime.text(
                            entry.session.lastSeenAt, zone: site.timeZone, in: viewer.language),
                        "confidence": confidence.rawValue, "confidenceLabel": Self.confidenceLabel(confidence, viewer),
                    ]
                }
            return [
                "id": site.id.rawValue, "name": site.name, "zone": site.timeZone,
                "count": viewer.words.number(rows.count), "rows": rows, "empty": rows.isEmpty,
            ]
        }
        return [
            "sites": sections, "noSites": sections.isEmpty, "mayManageSites": viewer.may(.manageSites),
            "after": String(after),
        ]
    }

    /// A confidence as the page shows it (console.js has the same words from the page's status element).
    static func confidenceLabel(_ confidence: PresenceConfidence, _ viewer: Viewer) -> String {
        switch confidence {
        case .confirmed: viewer.t("confirmed")
        case .unconfirmed: viewer.t("unconfirmed")
        case .silent: viewer.t("silent")
        }
    }

    /// `text/event-stream` of `presence` events for the viewer's sites, until the page closes or
    /// the server stops.
    private func events(for listener: PresenceHub.Viewer, after: UInt64) -> Response {
        let (id, stream) = hub.subscribe(listener, after: after)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        ConsoleSecurity.secure(&headers)
        let hub = self.hub
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await withGracefulShutdownHandler {
                    defer { hub.unsubscribe(id) }
                    try await writer.write(ByteBuffer(string: "retry: 2000\n: connected\n\n"))
                    for await message in stream { try await writer.write(ByteBuffer(string: message)) }
                } onGracefulShutdown: {
                    hub.unsubscribe(id)
                }
                try await writer.finish(nil)
            })
    }
}
