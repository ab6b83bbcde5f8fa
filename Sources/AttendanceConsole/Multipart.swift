import Foundation
import Hummingbird
import MultipartKit

/// A file sent with a form (`multipart/form-data`): the field's name, the file's name as the
/// browser gave it, and its bytes.
struct UploadedFile: Sendable {
    var field: String
    var filename: String
    var bytes: [UInt8]
}

extension FormData {
    /// The largest upload the console reads (a spreadsheet of 5,000 people is well under).
    static let maximumUploadBytes = 8 << 20

    /// A `multipart/form-data` body (vapor/multipart-kit's parser): its text fields as the form's
    /// items, its files apart.
    static func multipart(of request: Request, boundary: String) async throws -> FormData {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maximumUploadBytes)
        } catch {
            throw Problem(413, "File too large", "the upload is over \(maximumUploadBytes >> 20) MiB")
        }
        var form = FormData("")
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers.append((name.lowercased(), value)) }
        parser.onBody = { chunk in body += chunk.readBytes(length: chunk.readableBytes) ?? [] }
        parser.onPartComplete = {
            let disposition = headers.first { $0.0 == "content-disposition" }?.1 ?? ""
            let name = Self.parameter("name", in: disposition) ?? ""
            if let filename = Self.parameter("filename", in: disposition) {
                form.files.append(UploadedFile(field: name, filename: filename, bytes: body))
            } else {
                form.append(name: name, value: String(decoding: body, as: UTF8.self))
            }
            headers = []
            body = []
        }
        do {
            try parser.execute(buffer)
        } catch {
            throw Problem(400, "Form unreadable", "the form's multipart body could not be read: \(error)")
        }
        return form
    }

    /// `name="value"` in a `Content-Disposition` header.
    static func parameter(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    /// The boundary of a `multipart/form-data` content type; nil for any other type.
    static func boundary(_ contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        return parameter("boundary", in: contentType)
    }
}
