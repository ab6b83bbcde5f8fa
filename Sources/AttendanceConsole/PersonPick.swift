import AttendanceModels
import AttendanceRules
import Foundation

/// The employee a list is filtered to: chosen by `user=` (an id), or by `q=` (`EmployeeSearch`)
/// when the text matches exactly one person. While it matches none or several, the list waits and
/// offers the matches to choose from. A viewer limited to some sites finds only people who worked
/// at one of them, and an id of anyone else chooses nobody.
struct PersonPick {
    static let shownMatches = 50

    var selected: EmployeeRecord?
    /// Sorted by name; empty unless searching.
    var matches: [EmployeeRecord]
    var query: String?

    /// `q` was given and chose nobody: show the matches, not the list.
    var searching: Bool { query != nil && selected == nil }

    /// The filters of the list's address that say who: `user` once chosen, else `q`.
    var filters: [(String, String?)] { [("user", selected?.id.rawValue), ("q", selected == nil ? query : nil)] }

    /// The template's data: `selected` (its name and the address that clears it), `matches`
    /// (each with the address that chooses it), `moreMatches`, `searching` and `q`.
    func data(_ pager: Pager, _ viewer: Viewer) -> [String: Any] {
        [
            "searching": searching, "q": query ?? "",
            "selected": selected.map {
                ["id": $0.id.rawValue, "name": $0.name, "clear": pager.with(("user", nil), without: "q")]
            } as Any,
            "matches": matches.prefix(Self.shownMatches).map { employee in
                [
                    "name": employee.name, "externalId": employee.externalId ?? "",
                    "href": pager.with(("user", employee.id.rawValue), without: "q"),
                ] as [String: Any]
            },
            "moreMatches": matches.count > Self.shownMatches
                ? viewer.tp("%lld more match; type more of the name.", count: matches.count - Self.shownMatches) : "",
        ]
    }
}

extension Console {
    /// Who `form` chooses among `employees`, for `viewer`.
    func personPick(_ form: FormData, _ viewer: Viewer, employees: [EmployeeRecord]) async throws -> PersonPick {
        let inScope =
            viewer.scope == .all ? [] : try await services.repository.sites().filter { viewer.scope.permits($0.id) }
        var pick = PersonPick(selected: nil, matches: [], query: form["q"])
        if let id = form["user"] {
            // An id of nobody (or of someone a manager may not see) matches nobody: the list waits.
            let chosen = employees.first { $0.id.rawValue == id }.map { [$0] } ?? []
            pick.selected = viewer.scope == .all ? chosen.first : try await workedAt(inScope, chosen).first
            if pick.selected == nil { pick.query = id }
            return pick
        }
        guard let query = form["q"] else { return pick }
        pick.matches = employees.filter { EmployeeSearch.matches(query, $0) }
            .sorted { ($0.name, $0.id.rawValue) < ($1.name, $1.id.rawValue) }
        if viewer.scope != .all {
            // A manager finds only people who worked at their sites (the first 200 matches checked).
            pick.matches = try await workedAt(inScope, pick.matches.prefix(200))
        }
        if pick.matches.count == 1 { pick.selected = pick.matches[0] }
        return pick
    }

    /// Of `candidates`, those with a session at one of `sites`.
    private func workedAt(
        _ sites: [SiteRecord], _ candidates: some Collection<EmployeeRecord>
    ) async throws -> [EmployeeRecord] {
        var found: [EmployeeRecord] = []
        for employee in candidates {
            for site in sites {
                let page = try await services.admin.sessions(
                    userId: employee.id.rawValue, siteId: site.id.rawValue, from: nil, to: nil, limit: 1, cursor: nil)
                if !page.items.isEmpty {
                    found.append(employee)
                    break
                }
            }
        }
        return found
    }
}
