import ArgumentParser
import Foundation
import HolderKit
import Synchronization
import SwiftASN1
import X509
import HTTPTransport

/// One HTTP client for the process (async-http-client, redirects never followed), made on first use with the
/// HTTPS roots `TLSTrustOptions` set: the system's, plus `--tls-ca` and `SSL_CERT_FILE`.
enum SharedHTTP {
    private static let roots = Mutex<[Data]>([])

    /// The roots trusted besides the system's; set before the first use of `client`.
    static func trust(_ certificates: [Data]) { roots.withLock { $0 = certificates } }

    static let client: AsyncHTTPClientTransport = {
        let configuration = AsyncHTTPClientTransport.Configuration(additionalTrustRoots: roots.withLock { $0 })
        // The roots were parsed as certificates when the options were validated.
        return (try? AsyncHTTPClientTransport(trusting: configuration)) ?? AsyncHTTPClientTransport()
    }()
}

/// `--tls-ca PEM` on every command that makes HTTP requests, and `SSL_CERT_FILE` as OpenSSL honours it: private CAs
/// trusted for HTTPS besides the system's roots (a verifier, provider or ledger under a company CA).
struct TLSTrustOptions: ParsableArguments {
    @Option(name: .customLong("tls-ca"), help: "Trust this CA certificate (PEM) for HTTPS too (repeatable; SSL_CERT_FILE is honoured).")
    var tlsCA: [String] = []

    /// Reads the files now (a missing or unreadable one is a usage error before anything runs) and hands their
    /// certificates to the process's HTTP client.
    func validate() throws {
        var files = tlsCA
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty { files.append(file) }
        var certificates: [Data] = []
        for file in files {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ValidationError("\(file): cannot be read (--tls-ca / SSL_CERT_FILE)")
            }
            guard let documents = try? PEMDocument.parseMultiple(pemString: text), !documents.isEmpty,
                documents.allSatisfy({ (try? Certificate(derEncoded: $0.derBytes)) != nil })
            else { throw ValidationError("\(file): not PEM certificates (--tls-ca / SSL_CERT_FILE)") }
            certificates += documents.map { Data($0.derBytes) }
        }
        SharedHTTP.trust(certificates)
    }
}
