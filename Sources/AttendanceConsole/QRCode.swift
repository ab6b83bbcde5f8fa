import CQREncode
import Foundation

/// A QR code drawn as inline SVG, from libqrencode's module matrix: one path of dark runs on a
/// white square with the four-module quiet zone the standard asks for, so it scans in a dark
/// theme too. No script, no image request: the page's CSP stays as it is.
enum QRCode {
    /// Error correction M (15 %), the usual level for a link shown on a screen.
    static func svg(_ text: String, label: String) -> String? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let modules = code.pointee.data else { return nil }
        // Bit 0 of each byte: the module is dark.
        func dark(_ x: Int, _ y: Int) -> Bool { modules[y * width + x] & 1 == 1 }
        let quiet = 4
        var path = ""
        for y in 0..<width {
            var x = 0
            while x < width {
                guard dark(x, y) else {
                    x += 1
                    continue
                }
                var run = 1
                while x + run < width, dark(x + run, y) { run += 1 }
                path += "M\(x + quiet),\(y + quiet)h\(run)v1h-\(run)z"
                x += run
            }
        }
        let size = width + 2 * quiet
        let label = TemplateText.escaped(label)
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(size) \(size)\" width=\"\(size * 5)\" "
            + "height=\"\(size * 5)\" role=\"img\" aria-label=\"\(label)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(size)\" height=\"\(size)\" fill=\"white\"/><path fill=\"black\" d=\"\(path)\"/></svg>"
    }

    /// The key an authenticator app asks for when typed by hand: the link's `secret` (base32),
    /// in groups of four.
    static func typedKey(_ url: String) -> String? {
        guard let secret = URLComponents(string: url)?.queryItems?.first(where: { $0.name == "secret" })?.value
        else { return nil }
        var groups: [Substring] = []
        var rest = Substring(secret)
        while !rest.isEmpty {
            groups.append(rest.prefix(4))
            rest = rest.dropFirst(4)
        }
        return groups.joined(separator: " ")
    }
}
