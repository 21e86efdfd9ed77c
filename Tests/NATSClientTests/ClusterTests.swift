import Foundation
import Testing
import TesseraCore

@testable import NATSClient

/// Failover in a three-node cluster (routes between every pair): the node the client is on is killed with SIGKILL
/// while it publishes.
@Suite("NATSClient in a three-node cluster", .serialized, .timeLimit(.minutes(2)))
struct ClusterTests {
    @Test("the node it is connected to dies: reconnect elsewhere, subscriptions restored, every accepted message delivered")
    func failover() async throws {
        let fixture = try OperatorFixture()
        let cluster = try NATSCluster(fixture: fixture)
        let (n1, n2, n3) = (cluster.nodes[0], cluster.nodes[1], cluster.nodes[2])

        // The observer lives on n2 only; the publisher starts on n1 and knows the whole pool.
        let observer = try await connectedClient([n2.url], try fixture.user(name: "observer"))
        let observed = try await observer.subscribe(to: "failover.data")
        // Subscribed after the data subject: once its interest reached n1, the data subject's has too.
        let probe = try await observer.subscribe(to: "failover.probe")
        let answering = Task {
            for try await request in probe {
                if let replyTo = request.replyTo { try await observer.publish(Data("ok".utf8), to: replyTo) }
            }
        }
        try await observer.flush()
        let publisher = try await connectedClient([n1.url, n2.url, n3.url], try fixture.user(name: "publisher")) {
            $0.reconnectWait = .milliseconds(20)
            $0.maxReconnectAttempts = nil
        }
        #expect(await publisher.connectedServer?.port == n1.port)
        let events = await publisher.events()
        let ownSubscription = try await publisher.subscribe(to: "failover.back")
        try await publisher.flush()
        // Routes carry the observer's interest to n1 (they may still be forming right after start-up).
        try await waitUntilRouted(from: publisher, subject: "failover.probe")

        let count = 2_000
        let killAt = 700
        for i in 0..<count {
            if i == killAt { n1.kill() }
            try await publisher.publish(Data("\(i)".utf8), to: "failover.data")
            if i % 50 == 0 { try await Task.sleep(for: .milliseconds(2)) }
        }
        let reconnected = try await waitForEvent(events) { if case .reconnected = $0 { return true } else { return false } }
        guard case .reconnected(let server) = reconnected else { return }
        #expect(server.port != n1.port)
        try await publisher.flush()

        // At least once and in order: reading first occurrences gives 0..<count (a message in flight when n1 died
        // may arrive twice).
        let firstSeen = try await withTimeout(.seconds(30), "all \(count) messages at the observer") {
            var firstSeen: [Int] = []
            var seen = Set<Int>()
            for try await message in observed {
                guard let value = Int(String(decoding: message.payload, as: UTF8.self)) else { continue }
                if seen.insert(value).inserted { firstSeen.append(value) }
                if seen.count == count { break }
            }
            return firstSeen
        }
        #expect(firstSeen == Array(0..<count))

        // The publisher's own subscription was restored on the new node.
        try await observer.publish(Data("back".utf8), to: "failover.back")
        #expect(try await collect(ownSubscription, count: 1).first?.payload == Data("back".utf8))
        answering.cancel()
        await publisher.close()
        await observer.close()
    }

    /// Requests on `subject` until the responder on the other node answers (route interest propagates
    /// asynchronously after start-up).
    func waitUntilRouted(from publisher: NATSClient, subject: String) async throws {
        for _ in 0..<100 {
            if (try? await publisher.request(Data(), to: subject, timeout: .milliseconds(200))) != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TimedOut(what: "route interest")
    }
}
