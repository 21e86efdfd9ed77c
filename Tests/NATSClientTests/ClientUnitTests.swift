import Foundation
import Testing
import TesseraCore

@testable import NATSClient

@Suite("NATSClient parts without a server")
struct ClientUnitTests {
    @Test("server URLs", arguments: [
        ("nats://127.0.0.1:4222", "127.0.0.1", 4222, false), ("tls://nats.example:7422", "nats.example", 7422, true),
        ("localhost", "localhost", 4222, false), ("[::1]:5222", "::1", 5222, false), ("host:1/path", "host", 1, false),
    ])
    func urls(_ url: String, _ host: String, _ port: Int, _ tls: Bool) throws {
        let address = try ServerAddress(url)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.requiresTLS == tls)
    }

    @Test("bad server URLs", arguments: ["http://x:1", "nats://user:pass@host:1", "nats://:4222", "host:0", "host:x", "[::1"])
    func badURLs(_ url: String) {
        #expect(throws: NATSError.invalidURL(url)) { try ServerAddress(url) }
    }

    @Test("reconnect delays grow, are capped and jittered within bounds, reproducibly")
    func backoff() {
        let backoff = ReconnectBackoff(
            base: .milliseconds(100), maximum: .seconds(2), jitter: 0.25, random: SeededRandomSource(seed: 7))
        let again = ReconnectBackoff(
            base: .milliseconds(100), maximum: .seconds(2), jitter: 0.25, random: SeededRandomSource(seed: 7))
        for failures in 0..<12 {
            let delay = backoff.delay(afterFailures: failures)
            #expect(delay == again.delay(afterFailures: failures))
            let nominal: Duration = failures == 0 ? .milliseconds(50) : min(.milliseconds(100) * (1 << (failures - 1)), .seconds(2))
            #expect(delay >= nominal * 0.75 && delay <= nominal * 1.25, "\(failures): \(delay)")
        }
    }

    @Test("permission violation texts as nats-server words them")
    func permissionTexts() throws {
        let publish = try #require(PermissionViolation(#"Permissions Violation for Publish to "a.b""#))
        #expect(publish.operation == "Publish")
        #expect(publish.subject == "a.b")
        #expect(!publish.isSubscription)
        let queue = try #require(PermissionViolation(#"Permissions Violation for Subscription to "jobs.>" using queue "w""#))
        #expect(queue.isSubscription)
        #expect(queue.subject == "jobs.>")
        #expect(queue.queue == "w")
        #expect(PermissionViolation("Authorization Violation") == nil)
        #expect(PermissionViolation(#"Permissions Violation for Publish to "#) == nil)
    }

    @Test("with no server reachable, connect fails with a typed error and the client is closed")
    func nothingListening() async throws {
        var options = try NATSClientOptions(urls: ["nats://127.0.0.1:\(try freePort())"])
        options.connectTimeout = .milliseconds(500)
        let client = NATSClient(options: options)
        await #expect(throws: NATSError.connectFailed("nats://127.0.0.1:\(options.servers[0].port)")) {
            try await client.connect()
        }
        await #expect(throws: NATSError.connectionClosed) { try await client.publish(Data(), to: "x") }
        await #expect(throws: NATSError.connectionClosed) { try await client.connect() }
    }

    @Test("publishing checks subjects and, once connected, max_payload; subscribing checks queue names")
    func validation() async throws {
        let client = NATSClient(options: try NATSClientOptions(urls: ["nats://127.0.0.1:1"]))
        await #expect(throws: NATSError.invalidSubject("a b")) { try await client.publish(Data(), to: "a b") }
        await #expect(throws: NATSError.invalidSubject("a.*")) { try await client.publish(Data(), to: "a.*") }
        await #expect(throws: NATSError.invalidSubject("q q")) { _ = try await client.subscribe(to: "a", queue: "q q") }
    }
}

extension PermissionViolation: Equatable {
    public static func == (a: PermissionViolation, b: PermissionViolation) -> Bool {
        a.operation == b.operation && a.subject == b.subject && a.queue == b.queue
    }
}
