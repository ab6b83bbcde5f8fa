import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Bytes to a loopback port and everything that comes back until the server closes the
/// connection (`closedMark` appended) or keeps it open 3 s after a whole answer (`openMark`): for
/// the framing that URLSession would never send.
enum RawHTTP {
    static let closedMark = "<closed>"
    static let openMark = "<open>"

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The exchange on a thread of its own: its socket calls block, and a blocked thread of the
    /// concurrency pool (two on this machine) would starve the in-process server it talks to.
    static func exchange(port: Int, bytes: [UInt8]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try blockingExchange(port: port, bytes: bytes) }) }
            thread.start()
        }
    }

    private static func blockingExchange(port: Int, bytes: [UInt8]) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect() to port \(port) failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 250_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }   // the server may refuse and close before reading everything
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let start = ContinuousClock.now
        var completeAt: ContinuousClock.Instant?
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            let text = String(decoding: received, as: UTF8.self)
            if n > 0 {
                received += buffer[0..<n]
                if completeAt == nil, isComplete(received) { completeAt = .now }
                continue
            }
            if n == 0 || errno == ECONNRESET { return text + closedMark }
            // Silent: the server keeps the connection once the answer is whole and 3 s have passed
            // (the idle timeout is far longer); before that, wait up to 60 s on a loaded machine.
            if let completeAt, ContinuousClock.now - completeAt > .seconds(3) { return text + openMark }
            if completeAt == nil, ContinuousClock.now - start > .seconds(60) { return text + openMark }
        }
    }

    /// Whether the bytes hold a whole response: its head, and a body of its Content-Length.
    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<headEnd.lowerBound].lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return text[headEnd.upperBound...].utf8.count >= length
    }
}
