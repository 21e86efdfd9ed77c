import Foundation
import Testing

@testable import NATSClient

/// User/password and token authentication (CONNECT `user`/`pass`, `auth_token`) against nats-server without operator
/// mode.
@Suite("NATSClient with user/password and token", .serialized, .timeLimit(.minutes(1)))
struct PlainAuthTests {
    func client(_ url: String, _ authentication: NATSClientOptions.Authentication) async throws -> NATSClient {
        let client = NATSClient(options: try NATSClientOptions(urls: [url], authentication: authentication))
        try await client.connect()
        return client
    }

    @Test("user and password: right ones connect, a wrong password is an authorizationViolation")
    func userPassword() async throws {
        let server = try NATSServerProcess(plainConfig: #"authorization: { user: "vault", password: "s3cret-pw" }"#)
        let connected = try await client(server.url, .userPassword(user: "vault", password: "s3cret-pw"))
        let subscription = try await connected.subscribe(to: "plain")
        try await connected.publish(Data("ok".utf8), to: "plain")
        #expect(try await collect(subscription, count: 1).first?.payload == Data("ok".utf8))
        await connected.close()
        do {
            _ = try await client(server.url, .userPassword(user: "vault", password: "wrong"))
            Issue.record("a wrong password connected")
        } catch let error as NATSError {
            #expect(error == .authorizationViolation("Authorization Violation"))
        }
        // No credentials at all.
        await #expect(throws: NATSError.authorizationViolation("Authorization Violation")) {
            _ = try await client(server.url, .none)
        }
    }

    @Test("token: the right one connects, another is refused")
    func token() async throws {
        let server = try NATSServerProcess(plainConfig: #"authorization: { token: "t0ken-for-tests" }"#)
        let connected = try await client(server.url, .token("t0ken-for-tests"))
        try await connected.flush()
        await connected.close()
        await #expect(throws: NATSError.authorizationViolation("Authorization Violation")) {
            _ = try await client(server.url, .token("other"))
        }
        // Operator-mode credentials on a server that sends no nonce are refused before sending anything.
        let fixture = try OperatorFixture()
        await #expect(throws: NATSError.self) { _ = try await client(server.url, .credentials(try fixture.user())) }
    }
}
