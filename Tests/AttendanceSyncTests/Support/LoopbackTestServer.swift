import AttendanceModels
import AttendanceSync
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal idempotent attendance server on a real loopback socket (HTTP/1.1, keep-alive, one
/// thread per connection), standing in for the project's server until it lands (issue #4).
///
/// It follows docs/SERVER.md's exactly-once rules: `Idempotency-Key` required (400), the same key and body replay the
/// stored answer, the same key with another body is 422. Faults can be scripted for the next
/// requests: a status (with `Retry-After` and a problem detail), a delay (to cause a client
/// timeout), or a closed connection.
final class LoopbackTestServer: @unchecked Sendable {
    // @unchecked: the listening socket is written once in init and closed once in stop; all other
    // mutable state lives in `state`, behind a lock.

    enum Fault: Sendable {
        case status(Int, retryAfter: String? = nil, detail: String? = nil)
        case delay(Double)
        /// Handle the request (store it), then wait before answering: a client killed meanwhile
        /// never learns its events were stored.
        case slowAnswer(Double)
        case close
    }

    struct StoredEvent: Sendable {
        var key: String
        var type: String
        var sessionKey: String
        var ts: String
        var bodyHash: String
    }

    struct State {
        var faults: [Fault] = []
        var offersBatch = true
        var stored: [String: StoredEvent] = [:]
        var arrivalOrder: [String] = []
        var receipts = 0
        var replays = 0
    }

    let state = Locked(State())
    private(set) var port: UInt16 = 0
    private var listener: Int32 = -1

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    init() throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let socketToAccept = listener
        Thread.detachNewThread { [weak self] in
            while true {
                let client = accept(socketToAccept, nil, nil)
                guard client >= 0 else { return }
                guard let server = self else { close(client); return }
                Thread.detachNewThread { server.serve(client) }
            }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    func script(_ faults: Fault...) { state.withLock { $0.faults.append(contentsOf: faults) } }

    // MARK: - HTTP

    private func serve(_ client: Int32) {
        defer { close(client) }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            // Read a head, then the body (by Content-Length, or chunked as URLSession uploads it).
            var headEnd: Int?
            while headEnd == nil {
                if let range = buffer.firstRange(of: [13, 10, 13, 10]) { headEnd = range.upperBound; break }
                let n = read(client, &chunk, chunk.count)
                if n <= 0 { return }
                buffer.append(contentsOf: chunk[0..<n])
            }
            let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            let requestLine = lines[0].split(separator: " ")
            var headers: [String: String] = [:]
            for line in lines.dropFirst() where line.contains(":") {
                let parts = line.split(separator: ":", maxSplits: 1)
                headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
            }
            buffer.removeFirst(headEnd!)
            func fill(_ count: Int) -> Bool {
                while buffer.count < count {
                    let n = read(client, &chunk, chunk.count)
                    if n <= 0 { return false }
                    buffer.append(contentsOf: chunk[0..<n])
                }
                return true
            }
            var body = Data()
            if headers["transfer-encoding"]?.lowercased() == "chunked" {
                // Chunks: a hex size line, the bytes, CRLF; a zero size ends the body.
                while true {
                    var lineEnd: Int?
                    while lineEnd == nil {
                        if let range = buffer.firstRange(of: [13, 10]) { lineEnd = range.lowerBound; break }
                        if !fill(buffer.count + 1) { return }
                    }
                    let size = Int(String(decoding: buffer[0..<lineEnd!], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
                    guard fill(lineEnd! + 2 + size + 2) else { return }
                    body.append(contentsOf: buffer[(lineEnd! + 2)..<(lineEnd! + 2 + size)])
                    buffer.removeFirst(lineEnd! + 2 + size + 2)
                    if size == 0 { break }
                }
            } else {
                let length = Int(headers["content-length"] ?? "0") ?? 0
                guard fill(length) else { return }
                body = Data(buffer[0..<length])
                buffer.removeFirst(length)
            }
            let path = requestLine.count > 1 ? String(requestLine[1]) : "/"

            let fault = state.withLock { state -> Fault? in
                state.receipts += 1
                return state.faults.isEmpty ? nil : state.faults.removeFirst()
            }
            switch fault {
            case .close?:
                return
            case .delay(let seconds)?:
                Thread.sleep(forTimeInterval: seconds)
                respond(client, status: 503, headers: [:], body: Data())
                continue
            case .status(let status, let retryAfter, let detail)?:
                let problem = Self.json(["title": "scripted", "status": status, "detail": detail ?? "scripted fault \(status)"])
                respond(client, status: status, headers: retryAfter.map { ["Retry-After": $0] } ?? [:], body: problem, problem: true)
                continue
            case .slowAnswer(let seconds)?:
                let (status, responseBody) = handle(path: path, key: headers["idempotency-key"], body: body)
                Thread.sleep(forTimeInterval: seconds)
                respond(client, status: status, headers: [:], body: responseBody, problem: status >= 400)
                continue
            case nil:
                break
            }
            let (status, responseBody) = handle(path: path, key: headers["idempotency-key"], body: body)
            respond(client, status: status, headers: [:], body: responseBody, problem: status >= 400)
        }
    }

    private func handle(path: String, key: String?, body: Data) -> (Int, Data) {
        guard let key else { return problem(400, "the Idempotency-Key header is required") }
        switch path {
        case "/v1/attendance/events":
            guard state.value.offersBatch else { return problem(404, "no such endpoint") }
            guard let batch = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let events = batch["events"] as? [[String: Any]]
            else { return problem(400, "not a batch") }
            let results = events.map { item -> [String: Any] in
                let itemKey = item["idempotencyKey"] as? String ?? ""
                let type = item["type"] as? String ?? ""
                let payload = (item[type] as? [String: Any]).map { Self.json($0) } ?? Data()
                let (status, _) = store(key: itemKey, type: type, body: payload)
                var result: [String: Any] = ["idempotencyKey": itemKey, "status": status]
                if status >= 400 { result["problem"] = ["status": status, "detail": "same key, different payload"] }
                return result
            }
            return (200, Self.json(["results": results]))
        case "/v1/attendance/check-in": return store(key: key, type: "checkIn", body: body)
        case "/v1/attendance/check-out": return store(key: key, type: "checkOut", body: body)
        case "/v1/attendance/heartbeat": return store(key: key, type: "heartbeat", body: body)
        default: return problem(404, "no such endpoint \(path)")
        }
    }

    private func store(key: String, type: String, body: Data) -> (Int, Data) {
        // Payloads are compared canonically (parsed, keys sorted), as the server does: a resend
        // must not look like a different payload because its bytes are ordered differently.
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        let hash = SHA256.hex(bytes: object.map { Self.json($0) } ?? body)
        let fields = (sessionKey: object?["sessionKey"] as? String, ts: object?["ts"] as? String)
        return state.withLock { state -> (Int, Data) in
            if let existing = state.stored[key] {
                guard existing.bodyHash == hash else { return Self.problemBody(422, "the key \(key) was used with a different payload") }
                state.replays += 1
                return (201, Data(#"{"stored":"\#(key)"}"#.utf8))
            }
            state.stored[key] = StoredEvent(key: key, type: type, sessionKey: fields.sessionKey ?? "?", ts: fields.ts ?? "?", bodyHash: hash)
            state.arrivalOrder.append(key)
            return (201, Data(#"{"stored":"\#(key)"}"#.utf8))
        }
    }

    private func problem(_ status: Int, _ detail: String) -> (Int, Data) { Self.problemBody(status, detail) }

    private static func problemBody(_ status: Int, _ detail: String) -> (Int, Data) {
        (status, json(["title": "error", "status": status, "detail": detail]))
    }

    /// A JSON object's bytes, keys sorted.
    private static func json(_ object: [String: Any]) -> Data {
        try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    private func respond(_ client: Int32, status: Int, headers: [String: String], body: Data, problem: Bool = false) {
        var head = "HTTP/1.1 \(status) X\r\nContent-Length: \(body.count)\r\nContent-Type: \(problem ? "application/problem+json" : "application/json")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + Array(body)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            offset += n
        }
    }
}
