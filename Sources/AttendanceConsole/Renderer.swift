import Foundation
import Mustache

/// The console's Mustache templates (module resources, loaded once, compiled once per language
/// with their `[[key]]` texts from the catalogue) and static files.
struct Renderer: Sendable {
    private let libraries: [Language: MustacheLibrary]
    let catalogue: Catalogue
    let staticFiles: [String: (contentType: String, bytes: [UInt8])]

    init() throws {
        guard let base = Bundle.module.resourceURL else {
            throw Problem(500, "Console missing", "the AttendanceConsole resource bundle was not found")
        }
        catalogue = try Catalogue.bundled()
        var texts: [String: String] = [:]
        let folder = base.appendingPathComponent("templates")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".mustache") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            texts[String(name.dropLast(".mustache".count))] = text
        }
        var libraries: [Language: MustacheLibrary] = [:]
        for language in Language.allCases {
            var templates: [String: MustacheTemplate] = [:]
            for (name, text) in texts {
                templates[name] = try MustacheTemplate(string: TemplateText.translated(text, language, catalogue))
            }
            libraries[language] = MustacheLibrary(templates: templates)
        }
        self.libraries = libraries
        var files: [String: (String, [UInt8])] = [:]
        let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml"]
        let staticFolder = base.appendingPathComponent("static")
        for name in try FileManager.default.contentsOfDirectory(atPath: staticFolder.path) {
            guard let type = types[(name as NSString).pathExtension] else { continue }
            files[name] = (type, Array(try Data(contentsOf: staticFolder.appendingPathComponent(name))))
        }
        staticFiles = files
    }

    /// `template` in `language` with `data`; the layout reads the common keys (title, nav, csrf,
    /// lang …). The data is cleaned first (`Renderer.shown`), so that a section tests what a person
    /// would: an empty text or a nil is "nothing".
    func render(_ template: String, _ data: [String: Any], in language: Language) -> String {
        var all = data
        all["lang"] = language.rawValue
        return libraries[language]?.render(Self.shown(all), withTemplate: template)
            ?? "template '\(template)' is missing"
    }

    /// The catalogue in `language`.
    func words(_ language: Language) -> Words { Words(catalogue: catalogue, language: language) }

    /// `value` as the templates see it: an empty string and a nil (at any depth, also inside an
    /// `Any`) become `NSNull`, which Mustache renders as nothing and tests as false, so
    /// `{{#revoked}}` is false for a device never revoked and `{{^older}}` true on the last page.
    /// Mustache itself counts an empty string, and a nil boxed in `Any`, as present. The key stays:
    /// a missing one would be looked up in the enclosing data (a row's empty site would show the
    /// page's).
    static func shown(_ value: Any) -> Any {
        switch value {
        case let text as String: return text.isEmpty ? NSNull() : text
        case let object as [String: Any]: return object.mapValues(shown)
        case let list as [Any]: return list.map(shown)
        default:
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return value }
            return mirror.children.first.map { shown($0.value) } ?? NSNull()
        }
    }
}
