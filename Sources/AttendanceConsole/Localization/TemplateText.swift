/// A template's `[[key]]` markers replaced by the catalogue's text in one language, before the
/// template is parsed: each language has its own compiled templates, so a page pays nothing to
/// be translated. The text is escaped for HTML (text and quoted attributes alike); Mustache
/// variables in it (`{{count}}`) stay, to be filled when the page renders.
enum TemplateText {
    /// `template` in `language`; throws naming the first key the catalogue lacks.
    static func translated(_ template: String, _ language: Language, _ catalogue: Catalogue) throws -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.range(of: "[[") {
            guard let close = rest[open.upperBound...].range(of: "]]") else { break }
            let key = String(rest[open.upperBound..<close.lowerBound])
            guard case .text(let value) = catalogue.entry(key, language) else {
                throw CatalogueError(key: key, language: language.rawValue)
            }
            result += rest[..<open.lowerBound]
            result += escaped(value)
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    /// The keys a template's markers name.
    static func keys(in template: String) -> [String] {
        var keys: [String] = []
        var rest = Substring(template)
        while let open = rest.range(of: "[["), let close = rest[open.upperBound...].range(of: "]]") {
            keys.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return keys
    }

    /// HTML's five special characters as references; `{{…}}` is left as it is.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
