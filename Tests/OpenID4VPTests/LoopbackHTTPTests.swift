import Foundation
import HolderKit
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import TesseraJOSE
import Testing
import TesseraHTTP
import HTTPTransport

@testable import OpenID4VP

/// A real HTTP/1.1 server on 127.0.0.1 (SwiftNIO), for the async-http-client transport.
final class LoopbackHTTPServer: Sendable {
    struct Request: Sendable {
        let method: HTTPMethod
        let path: String
        let headers: HTTPHeaders
        let body: Data
    }

    struct Response: Sendable {
        var status: HTTPResponseStatus
        var headers: [(String, String)]
        var body: Data
    }

    typealias Handler = @Sendable (Request) -> Response

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let log: Mutex<[Request]>
    let port: Int

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, port: Int) {
        self.group = group
        self.channel = channel
        self.log = Mutex([])
        self.port = port
    }

    var requests: [Request] { log.withLock { $0 } }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    static func start(_ handler: @escaping Handler) async throws -> LoopbackHTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let recorder = RequestRecorder()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RoutingHandler(handler: handler, recorder: recorder))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw TestFailure("no port") }
        let server = LoopbackHTTPServer(group: group, channel: channel, port: port)
        recorder.server.withLock { $0 = server }
        return server
    }

    func stop() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }

    fileprivate func record(_ request: Request) { log.withLock { $0.append(request) } }
}

private final class RequestRecorder: Sendable {
    let server = Mutex<LoopbackHTTPServer?>(nil)
}

private final class RoutingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let handler: LoopbackHTTPServer.Handler
    let recorder: RequestRecorder
    var head: HTTPRequestHead?
    var body = ByteBuffer()

    init(handler: @escaping LoopbackHTTPServer.Handler, recorder: RequestRecorder) {
        self.handler = handler
        self.recorder = recorder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            let request = LoopbackHTTPServer.Request(method: head.method, path: head.uri, headers: head.headers, body: Data(body.readableBytesView))
            recorder.server.withLock { $0?.record(request) }
            let response = handler(request)
            var headers = HTTPHeaders(response.headers)
            headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
            headers.replaceOrAdd(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: response.status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
            // The response is complete: close once it is flushed (the channel's own close, on its event loop).
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            self.head = nil
        }
    }
}

/// The holder flow over real HTTP with `AsyncHTTPClientTransport`: request_uri POST with wallet_nonce, an
/// encrypted direct_post.jwt response, redirects not followed, the body size limit.
@Suite(.serialized) struct LoopbackHTTPTests {
    @Test func holderFlowOverLoopback() async throws {
        let verifier = try TestVerifier()
        let sdJWT = try TestSDJWTWorld()
        let clientId = VerifierRequests.x509HashClientId(leafCertificateDER: try verifier.leafDER)
        let responsePath = "/response/7f3a"
        let portBox = Mutex(0)
        let server = try await LoopbackHTTPServer.start { request in
            switch (request.method, request.path) {
            case (.POST, "/request/abc"):
                guard let text = String(data: request.body, encoding: .utf8),
                    let nonce = try? FormURLEncoding.decode(text).first(where: { $0.name == "wallet_nonce" })?.value,
                    let claims = try? verifier.parameters(clientId: clientId, edit: {
                        $0["wallet_nonce"] = .string(nonce)
                        $0["response_uri"] = .string("http://127.0.0.1:\(portBox.withLock { $0 })\(responsePath)")
                    }),
                    let object = try? verifier.requestObject(claims)
                else { return .init(status: .badRequest, headers: [], body: Data()) }
                return .init(status: .ok, headers: [("Content-Type", "application/oauth-authz-req+jwt")], body: Data(object.utf8))
            case (.POST, responsePath):
                return .init(status: .ok, headers: [("Content-Type", "application/json")], body: Data(#"{"redirect_uri":"https://verifier.example.org/cb#response_code=5"}"#.utf8))
            default:
                return .init(status: .notFound, headers: [], body: Data())
            }
        }
        portBox.withLock { $0 = server.port }
        let transport = AsyncHTTPClientTransport()
        do {
            let config = walletConfig(verifier, http: transport) { $0.allowsLoopbackHTTP = true }
            let uri = VerifierRequests.invocationURI(clientId: clientId, requestURI: server.url("/request/abc"), method: .post)
            let parsed = try await parseAuthorizationRequest(requestUri: uri, walletConfig: config)
            #expect(parsed.walletNonce != nil)
            let request = try await resolveAuthorizationRequest(parsed, walletConfig: config)
            let selection = try request.match([try sdJWT.credential()]).preferredSelection()
            let response = try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: config)
            let result = try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: config)
            guard case .success(let redirect, _) = result else { throw TestFailure("not a success: \(result)") }
            #expect(redirect?.absoluteString == "https://verifier.example.org/cb#response_code=5")

            let seen = server.requests
            #expect(seen.map(\.path) == ["/request/abc", responsePath])
            #expect(seen.first?.headers["Content-Type"].first == "application/x-www-form-urlencoded")
            let received = try ReceivedAuthorizationResponse.parse(formBody: try #require(seen.last?.body), decryptionKey: verifier.encryptionKey)
            #expect(received.response == response)
        } catch {
            try await transport.shutdown()
            try await server.stop()
            throw error
        }
        try await transport.shutdown()
        try await server.stop()
    }

    @Test func redirectsAreNotFollowedAndBodiesAreLimited() async throws {
        let server = try await LoopbackHTTPServer.start { request in
            switch request.path {
            case "/redirect": return .init(status: .found, headers: [("Location", "/elsewhere")], body: Data())
            case "/big": return .init(status: .ok, headers: [("Content-Type", "application/json")], body: Data(repeating: 0x20, count: 4096))
            default: return .init(status: .ok, headers: [], body: Data("reached".utf8))
            }
        }
        let transport = AsyncHTTPClientTransport(configuration: .init(maximumResponseBytes: 1024))
        do {
            let redirect = try await transport.send(HTTPRequest(method: .get, url: try #require(URL(string: server.url("/redirect")))))
            #expect(redirect.status == 302)
            #expect(redirect.isRedirect)
            #expect(server.requests.map(\.path) == ["/redirect"])

            // Through the holder flow the 302 is an error (§14.8).
            let config = walletConfig(http: transport) { $0.allowsLoopbackHTTP = true }
            let uri = VerifierRequests.invocationURI(clientId: "x509_hash:abc", requestURI: server.url("/redirect"))
            await expectError(.httpRedirectRejected(status: 302)) { try await parseAuthorizationRequest(requestUri: uri, walletConfig: config) }
            #expect(server.requests.map(\.path) == ["/redirect", "/redirect"])

            // The transport's own error, which the OpenID4VP flow reports as `httpResponseTooLarge`.
            await #expect(throws: HTTPError.responseTooLarge(limit: 1024)) {
                try await transport.send(HTTPRequest(method: .get, url: try #require(URL(string: server.url("/big")))))
            }
            // Only loopback may use http, and only when allowed.
            let strict = walletConfig(http: transport)
            await expectError(.insecureURI(name: "request_uri")) { try await parseAuthorizationRequest(requestUri: uri, walletConfig: strict) }
        } catch {
            try await transport.shutdown()
            try await server.stop()
            throw error
        }
        try await transport.shutdown()
        try await server.stop()
    }
}
