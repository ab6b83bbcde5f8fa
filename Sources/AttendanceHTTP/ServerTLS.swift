import AttendanceRules
import AttendanceServer
import Foundation
import HummingbirdTLS

/// HTTPS served by `attendance serve` itself: a certificate chain and its private key, both PEM
/// files (docs/SERVER.md, "TLS"). Read once at start; a file that is missing or not PEM stops the
/// start with the flag and the file named.
public struct ServerTLS: Hashable, Sendable {
    public var certificatePath: String
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }

    /// The server's TLS configuration (TLS 1.2 or later, swift-nio-ssl's default ciphers).
    func configuration() throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificatePath) } catch {
            throw DomainError.field(
                "--tls-cert", certificatePath,
                expected: "a readable PEM file holding the server's certificate chain (\(error))")
        }
        guard !chain.isEmpty else {
            throw DomainError.field(
                "--tls-cert", certificatePath, expected: "a PEM file with at least one CERTIFICATE block")
        }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem) } catch {
            throw DomainError.field(
                "--tls-key", privateKeyPath,
                expected: "a readable, unencrypted PEM file holding the certificate's private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
