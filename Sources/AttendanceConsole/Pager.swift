import AttendanceModels
import Foundation

/// A list page's links to the pages before and after it, keeping every filter. Keyset pages: the
/// next page starts after the last row shown (`after`), and the way back is the trail of the
/// `after`s that led here (`trail`, comma-separated, at most `Pager.trailLimit` kept; past that, "First page").
struct Pager {
    static let trailLimit = 30

    /// The page's address without its position: `/console/sessions` and its filters.
    let path: String
    let filters: [(String, String?)]
    /// The `after` this page was read from (nil: the first page) and the ones before it.
    let current: String?
    let trail: [String]

    /// The query parameter that holds the position: `after`, or `before` where older rows come next.
    let position: String

    init(path: String, filters: [(String, String?)], form: FormData, position: String = "after") {
        self.path = path
        self.filters = filters
        self.position = position
        current = form[position]
        trail = (form["trail"] ?? "").split(separator: ",").map(String.init).suffix(Self.trailLimit)
    }

    /// The data of the `pager` partial: links with `rel="prev"` and `rel="next"` where there is a
    /// page; `next` is the position after the last row shown when there are more rows.
    func data(next: String?) -> [String: Any] {
        var links: [String: Any] = [:]
        if current != nil {
            let previous = trail.last
            links["prev"] = url(after: previous, trail: Array(trail.dropLast()))
            links["first"] = url(after: nil, trail: [])
        }
        if let next {
            links["next"] = url(after: next, trail: current.map { trail + [$0] } ?? [])
        }
        links["any"] = links["prev"] != nil || links["next"] != nil
        return links
    }

    /// This list with its filters, at `after`.
    func url(after: String?, trail: [String]) -> String {
        var items = filters.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
            .filter { !($0.value ?? "").isEmpty }
        if let after {
            items.append(URLQueryItem(name: position, value: after))
            if !trail.isEmpty { items.append(URLQueryItem(name: "trail", value: trail.joined(separator: ","))) }
        }
        return Self.address(path, items)
    }

    /// The first page of this list with `filter` set (nil: removed) and `without` dropped.
    func with(_ filter: (String, String?), without dropped: String) -> String {
        let kept = filters.filter { $0.0 != filter.0 && $0.0 != dropped } + [filter]
        return Pager(path: path, filters: kept, form: FormData(""), position: position).url(after: nil, trail: [])
    }

    /// `path?name=value&…`, each value percent-encoded for a query.
    static func address(_ path: String, _ items: [URLQueryItem]) -> String {
        guard !items.isEmpty else { return path }
        return path + "?" + items.map { $0.name + "=" + encoded($0.value ?? "") }.joined(separator: "&")
    }

    /// `text` as one value of a query string.
    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+;#?/:@")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// A position in a list sorted in memory (a name and an id): opaque, URL-safe.
    static func token(_ parts: [String]) -> String {
        Data(parts.joined(separator: "\u{1F}").utf8).base64URLEncoded
    }

    static func parts(_ token: String) -> [String]? {
        guard let data = Data(base64URLEncoded: token) else { return nil }
        return String(decoding: data, as: UTF8.self).components(separatedBy: "\u{1F}")
    }

    /// One page of `items` (already sorted by `key`) after the position `after` names: the page
    /// and the position after its last item when more follow.
    static func page<Item>(
        _ items: [Item], after: String?, size: Int, key: (Item) -> [String]
    ) -> (items: ArraySlice<Item>, next: String?) {
        var start = items.startIndex
        if let after, let position = parts(after) {
            start =
                items.firstIndex { key($0).lexicographicallyPrecedes(position) == false && key($0) != position }
                ?? items.endIndex
        }
        let page = items[start..<min(start + size, items.endIndex)]
        let next = page.endIndex < items.endIndex ? page.last.map { token(key($0)) } : nil
        return (page, next)
    }
}
