import Foundation
import Mustache

/// The console's Mustache templates (module resources, loaded once) and static files.
struct Renderer: Sendable {
    private let library: MustacheLibrary
    let staticFiles: [String: (contentType: String, bytes: [UInt8])]

    init() throws {
        guard let base = Bundle.module.resourceURL else {
            throw Problem(500, "Console missing", "the AttendanceConsole resource bundle was not found")
        }
        var templates: [String: MustacheTemplate] = [:]
        let folder = base.appendingPathComponent("templates")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".mustache") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            templates[String(name.dropLast(".mustache".count))] = try MustacheTemplate(string: text)
        }
        library = MustacheLibrary(templates: templates)
        var files: [String: (String, [UInt8])] = [:]
        let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml"]
        let staticFolder = base.appendingPathComponent("static")
        for name in try FileManager.default.contentsOfDirectory(atPath: staticFolder.path) {
            guard let type = types[(name as NSString).pathExtension] else { continue }
            files[name] = (type, Array(try Data(contentsOf: staticFolder.appendingPathComponent(name))))
        }
        staticFiles = files
    }

    /// `template` with `data`; the layout reads the common keys (title, nav, csrf …).
    func render(_ template: String, _ data: [String: Any]) -> String {
        library.render(data, withTemplate: template) ?? "template '\(template)' is missing"
    }
}
