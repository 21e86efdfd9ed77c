import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import TesseraHTTP

/// `TesseraHTTP.HTTPClient` on async-http-client: redirects disallowed (OpenID4VP §14.8), connect and read
/// time-outs, a response body size limit, and trust roots added to the system's for a private CA. Owns its
/// async-http-client client; call `shutdown()` when done with it.
public final class AsyncHTTPClientTransport: TesseraHTTP.HTTPClient {
    public struct Configuration: Sendable {
        /// Time allowed to connect (and finish TLS).
        public var connectTimeout: Duration
        /// Time allowed for the whole exchange.
        public var requestTimeout: Duration
        /// Largest accepted response body.
        public var maximumResponseBytes: Int
        /// Root certificates (DER) trusted for HTTPS besides the system's: a private CA's (`--tls-ca`,
        /// `SSL_CERT_FILE`).
        public var additionalTrustRoots: [Data]

        public init(
            connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30), maximumResponseBytes: Int = 1 << 20,
            additionalTrustRoots: [Data] = []
        ) {
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maximumResponseBytes = maximumResponseBytes
            self.additionalTrustRoots = additionalTrustRoots
        }

        public static let `default` = Configuration()
    }

    private let client: AsyncHTTPClient.HTTPClient
    public let configuration: Configuration

    /// - Throws: `HTTPError.transport` when an additional trust root is not a certificate.
    public convenience init(trusting configuration: Configuration) throws(HTTPError) {
        var certificates: [NIOSSLCertificate] = []
        for der in configuration.additionalTrustRoots {
            do {
                certificates.append(try NIOSSLCertificate(bytes: Array(der), format: .der))
            } catch {
                throw .transport("a trust root is not a DER certificate")
            }
        }
        self.init(configuration: configuration, trustRoots: certificates)
    }

    public convenience init(configuration: Configuration = .default) {
        self.init(configuration: configuration, trustRoots: [])
    }

    private init(configuration: Configuration, trustRoots: [NIOSSLCertificate]) {
        self.configuration = configuration
        var clientConfiguration = AsyncHTTPClient.HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(
                connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.requestTimeout)),
            decompression: .disabled
        )
        clientConfiguration.httpVersion = .automatic
        if !trustRoots.isEmpty {
            // The system's roots stay trusted; the private CA is added to them.
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(trustRoots)]
            clientConfiguration.tlsConfiguration = tls
        }
        self.client = AsyncHTTPClient.HTTPClient(
            eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
    }

    /// Closes the connections. The transport cannot be used afterwards.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let limit = configuration.maximumResponseBytes
        do {
            let response = try await client.execute(outgoing, timeout: TimeAmount(configuration.requestTimeout))
            var received = ByteBuffer()
            for try await var chunk in response.body {
                guard received.readableBytes + chunk.readableBytes <= limit else { throw BodyTooLarge() }
                received.writeBuffer(&chunk)
            }
            return HTTPResponse(
                status: Int(response.status.code),
                headers: response.headers.map { (name: $0.name, value: $0.value) },
                body: Data(received.readableBytesView))
        } catch is BodyTooLarge {
            throw .responseTooLarge(limit: limit)
        } catch {
            throw .transport(String(describing: type(of: error)) + ": " + String(describing: error))
        }
    }

    private struct BodyTooLarge: Error {}
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
