import AttendanceModels
import AttendanceServer
import Foundation
import OpenAPIRuntime

/// Dates on the wire are RFC 3339 as the rest of the product writes them (UTC, milliseconds when
/// there is a fraction), so the generated types encode a time exactly as `IngestService` stored it.
struct RFC3339Transcoder: DateTranscoder {
    func encode(_ date: Date) throws -> String { RFC3339.format(date) }

    func decode(_ text: String) throws -> Date {
        do { return try RFC3339.parse(text) } catch { throw WireValueError(value: text, message: error.description) }
    }
}

/// A value the generated decoder refused, described for the problem's `detail`.
struct WireValueError: Error, CustomStringConvertible {
    let value: String
    let message: String
    var description: String { message }
}

enum FieldLocator {
    /// Where a refused string value sits in the request: a JSON body's key path or a query
    /// parameter's name (the generated decoder reports the value, not its place).
    static func field(holding value: String, body: Data?, query: String?) -> String? {
        if let body, let object = try? JSONSerialization.jsonObject(with: body), let path = path(to: value, in: object, prefix: "") {
            return path
        }
        let items = URLComponents(string: "/?" + (query ?? ""))?.queryItems ?? []
        return items.first { $0.value == value }?.name
    }

    private static func path(to value: String, in object: Any, prefix: String) -> String? {
        switch object {
        case let text as String:
            return text == value ? prefix : nil
        case let dictionary as [String: Any]:
            for key in dictionary.keys.sorted() {
                if let found = path(to: value, in: dictionary[key]!, prefix: prefix.isEmpty ? key : prefix + "." + key) { return found }
            }
            return nil
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                if let found = path(to: value, in: element, prefix: prefix + "[\(index)]") { return found }
            }
            return nil
        default:
            return nil
        }
    }
}

enum Wire {
    /// The generated code's configuration: compact, sorted keys, RFC 3339 dates;
    /// `CanonicalJSON.wireEncoder` writes the same bytes for the answers the server stores.
    static let configuration = Configuration(dateTranscoder: RFC3339Transcoder(), jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            return try RFC3339Transcoder().decode(try container.decode(String.self))
        }
        return decoder
    }()

    /// A generated value's JSON as the generated code writes it: the bytes of a stored answer,
    /// and the canonical form a request's identity is the digest of.
    static func encode<T: Encodable>(_ value: T) throws -> Data { try CanonicalJSON.wireEncoder.encode(value) }

    /// A stored answer's or a domain value's JSON as the contract's generated type.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T { try decoder.decode(type, from: data) }
}
