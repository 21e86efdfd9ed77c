import Foundation
import NIOSSL

/// HTTPS for a service: a certificate chain (leaf first) and its private key, both PEM files, as `--tls-cert` and
/// `--tls-key` name them. Without it a service speaks plain HTTP (behind a TLS-terminating proxy, or on loopback).
public struct ServiceTLS: Sendable {
    public let certificateChainPath: String
    public let privateKeyPath: String

    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }

    /// Both files read and checked now, so a service with a bad certificate or key never starts.
    public func serverConfiguration() throws(ServiceTLSError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateChainPath)
        } catch {
            throw .unreadable("\(certificateChainPath): not a PEM certificate chain")
        }
        guard !chain.isEmpty else { throw .unreadable("\(certificateChainPath): no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        } catch {
            throw .unreadable("\(privateKeyPath): not a PEM private key")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}

public enum ServiceTLSError: Error, Sendable, CustomStringConvertible {
    case unreadable(String)

    public var description: String {
        switch self {
        case .unreadable(let reason): return "TLS: \(reason)"
        }
    }
}
