import AttendanceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `attendance serve --tls-cert --tls-key`: HTTPS from the server itself (docs/SERVER.md, "TLS"),
/// checked with curl trusting only a certificate made for the test.
@Suite struct ServeTLSTests {
    /// A self-signed certificate for 127.0.0.1 and its key, made by openssl in `directory`.
    static func selfSigned(in directory: URL) async throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent("server.crt").path
        let key = directory.appendingPathComponent("server.key").path
        let made = try await ChildProcess(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ]
        ).finish()
        guard made.status == 0 else { throw OpenSSLFailed(stderr: made.stderr) }
        return (certificate, key)
    }

    struct OpenSSLFailed: Error {
        let stderr: String
    }

    /// curl's answer: the status, or 0 with curl's own error when the exchange failed.
    static func curl(_ arguments: [String]) async throws -> (status: Int, body: String, error: String) {
        let run = try await ChildProcess(
            URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "--max-time", "20", "-w", "\n%{http_code}"] + arguments
        )
        .finish()
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"), run.stderr)
    }

    @Test func theServerAnswersHTTPSWithItsCertificateAndSecureCookies() async throws {
        let database = try ServeCommandTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let tls = try await Self.selfSigned(in: database.directory)
        let child = try ChildProcess(
            try builtExecutable("attendance"),
            ["serve", "--port", "0", "--database", database.path, "--tls-cert", tls.certificate, "--tls-key", tls.key])
        var port: Int?
        for _ in 0..<300 where port == nil {
            let prefix = "Listening on https://127.0.0.1:"
            if let line = child.standardOutputSoFar.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) {
                port = Int(line.dropFirst(prefix.count).prefix { $0.isNumber })
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let bound = try #require(port, "serve did not start: \(child.standardOutputSoFar)")
        #expect(child.standardOutputSoFar.contains("Console: https://127.0.0.1:\(bound)/console"))
        let health = try await Self.curl(["--cacert", tls.certificate, "https://127.0.0.1:\(bound)/health"])
        #expect(health.status == 200 && health.body.contains("\"status\":\"ok\""), "\(health)")
        // Without the certificate trusted, curl refuses it; plain HTTP gets no answer on that port.
        let untrusted = try await Self.curl(["https://127.0.0.1:\(bound)/health"])
        #expect(untrusted.status == 0 && untrusted.error.contains("certificate"), "\(untrusted)")
        #expect(try await Self.curl(["http://127.0.0.1:\(bound)/health"]).status != 200)
        // The console's cookies are Secure on a server that terminates TLS itself.
        let signIn = try await Self.curl([
            "--cacert", tls.certificate, "-D", "-", "https://127.0.0.1:\(bound)/console/sign-in",
        ])
        #expect(signIn.status == 200)
        #expect(
            signIn.body.lowercased().contains("set-cookie:") && signIn.body.contains("; Secure"),
            "\(signIn.body.prefix(600))")
        // Every answer over TLS tells the browser to come back only over https (HSTS), for a year.
        #expect(
            signIn.body.lowercased().contains("strict-transport-security: max-age=31536000"),
            "\(signIn.body.prefix(600))")
        child.signal(SIGTERM)
        #expect(await child.finish().status == 0)
    }

    @Test func aMissingKeyOrAnUnreadableCertificateIsAClearError() async throws {
        let database = try ServeCommandTests.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.directory) }
        let alone = try await ChildProcess(
            try builtExecutable("attendance"), ["serve", "--database", database.path, "--tls-cert", "/tmp/x.crt"]
        ).finish()
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--tls-cert is set without its pair: the TLS certificate and key go together"))
        let missing = try await ChildProcess(
            try builtExecutable("attendance"),
            [
                "serve", "--port", "0", "--database", database.path, "--tls-cert", "/no/such.crt", "--tls-key",
                "/no/such.key",
            ]
        ).finish()
        #expect(missing.status == 1)
        #expect(
            missing.stderr.contains("'--tls-cert' is '/no/such.crt'; expected a readable PEM file"), "\(missing.stderr)"
        )
    }
}
