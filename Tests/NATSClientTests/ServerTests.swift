import Foundation
import Testing
import TesseraCore

@testable import NATSClient

/// The client against the real nats-server (Debian package) in operator mode: accounts and users minted by our own
/// JWT code, a full resolver preloaded with them. One server per test; never a mock.
@Suite("NATSClient against nats-server (operator mode)", .serialized, .timeLimit(.minutes(2)))
struct ServerTests {
    let fixture: OperatorFixture
    let server: NATSServerProcess

    init() throws {
        fixture = try OperatorFixture()
        server = try NATSServerProcess(fixture: fixture)
    }

    @Test("publish and subscribe with headers; CONNECT with JWT and nonce signature")
    func pubSub() async throws {
        let client = try await connectedClient([server.url], try fixture.user())
        let info = try #require(await client.serverInfo)
        #expect(info.nonce != nil)
        let subscription = try await client.subscribe(to: "greetings.*")
        var headers = NATSHeaders()
        headers.append("Tessera-Id", "42")
        try await client.publish(Data("hello".utf8), to: "greetings.en", headers: headers)
        try await client.publish(Data("ciao".utf8), to: "greetings.it")
        let messages = try await collect(subscription, count: 2)
        #expect(messages.map(\.subject) == ["greetings.en", "greetings.it"])
        #expect(messages[0].headers?["tessera-id"] == "42")
        #expect(messages[1].payload == Data("ciao".utf8))
        await client.close()
    }

    @Test("a user the account did not sign is refused: authorizationViolation")
    func wrongAccount() async throws {
        let stranger = try NKeyPair(type: .account, random: SystemRandomSource())
        let credentials = try fixture.user(of: stranger)
        await #expect(throws: NATSError.self) { _ = try await connectedClient([server.url], credentials) }
        // An expired user JWT too.
        let expired = try fixture.user(expires: Date().addingTimeInterval(-60))
        do {
            _ = try await connectedClient([server.url], expired)
            Issue.record("an expired user connected")
        } catch let error as NATSError {
            guard case .authorizationViolation = error else { Issue.record("unexpected \(error)"); return }
        }
    }

    @Test("bootstrap permissions: the violation is a typed error and the connection survives")
    func permissions() async throws {
        let guid = UUID().uuidString.lowercased()
        let allowedPublish = "OwnerSpace.\(guid).forVault.app.bootstrap"
        let bootstrap = try fixture.user(
            name: "bootstrap", publish: NATSPermission(allow: [allowedPublish]),
            subscribe: NATSPermission(allow: ["OwnerSpace.\(guid).forApp.app.bootstrap.>"]))
        let observer = try await connectedClient([server.url], try fixture.user(name: "vault"))
        let vaultSide = try await observer.subscribe(to: "OwnerSpace.\(guid).>")
        try await observer.flush()

        let client = try await connectedClient([server.url], bootstrap)
        let events = await client.events()
        let appInbox = try await client.subscribe(to: "OwnerSpace.\(guid).forApp.app.bootstrap.reply")
        try await client.flush()

        // Publishing elsewhere: the server refuses; flush reports it.
        try await client.publish(Data("nope".utf8), to: "OwnerSpace.\(guid).forVault.app.secrets")
        await #expect(throws: NATSError.permissionViolation(operation: "Publish", subject: "OwnerSpace.\(guid).forVault.app.secrets")) {
            try await client.flush()
        }
        let event = try await waitForEvent(events) { if case .error = $0 { return true } else { return false } }
        #expect(event == .error(.permissionViolation(operation: "Publish", subject: "OwnerSpace.\(guid).forVault.app.secrets")))

        // Subscribing elsewhere: that subscription ends with the error.
        let forbidden = try await client.subscribe(to: "OwnerSpace.\(guid).forVault.>")
        await #expect(throws: NATSError.permissionViolation(operation: "Subscription", subject: "OwnerSpace.\(guid).forVault.>")) {
            for try await _ in forbidden {}
        }

        // The connection survived: the allowed subjects still work both ways.
        try await client.publish(Data("hello vault".utf8), to: allowedPublish)
        try await client.flush()
        let received = try await collect(vaultSide, count: 1)
        #expect(received.first?.subject == allowedPublish)
        #expect(received.first?.payload == Data("hello vault".utf8))
        try await observer.publish(Data("hello app".utf8), to: "OwnerSpace.\(guid).forApp.app.bootstrap.reply")
        let reply = try await collect(appInbox, count: 1)
        #expect(reply.first?.payload == Data("hello app".utf8))
        #expect(await client.connectedServer != nil)

        // The bootstrap user may not subscribe to an inbox: a request fails at once with that violation.
        do {
            _ = try await client.request(Data(), to: allowedPublish, timeout: .seconds(5))
            Issue.record("a request without an inbox got an answer")
        } catch NATSError.permissionViolation(let operation, let subject) {
            #expect(operation == "Subscription")
            #expect(subject.hasPrefix("_INBOX."))
        }
        await client.close()
        await observer.close()
    }

    @Test("request-reply, no responders and timeout are distinct typed outcomes")
    func requestReply() async throws {
        let responder = try await connectedClient([server.url], try fixture.user(name: "responder"))
        let service = try await responder.subscribe(to: "svc.echo")
        let silent = try await responder.subscribe(to: "svc.silent")
        let serving = Task {
            for try await request in service {
                guard let replyTo = request.replyTo else { continue }
                try await responder.publish(Data("echo:".utf8) + request.payload, to: replyTo)
            }
        }
        try await responder.flush()
        let client = try await connectedClient([server.url], try fixture.user(name: "requester"))
        for i in 0..<20 {
            let reply = try await client.request(Data("\(i)".utf8), to: "svc.echo", timeout: .seconds(5))
            #expect(reply.payload == Data("echo:\(i)".utf8))
        }
        // Concurrent requests each get their own reply.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<50 {
                group.addTask {
                    let reply = try await client.request(Data("c\(i)".utf8), to: "svc.echo")
                    #expect(reply.payload == Data("echo:c\(i)".utf8))
                }
            }
            try await group.waitForAll()
        }
        await #expect(throws: NATSError.noResponders(subject: "svc.nobody")) {
            _ = try await client.request(Data(), to: "svc.nobody")
        }
        await #expect(throws: NATSError.timeout) {
            _ = try await client.request(Data(), to: "svc.silent", timeout: .milliseconds(300))
        }
        _ = silent
        serving.cancel()
        await client.close()
        await responder.close()
    }

    @Test("queue group: each message to exactly one member; a plain subscriber gets all")
    func queueGroups() async throws {
        let members = try await connectedClient([server.url], try fixture.user(name: "workers"))
        let queue = try await (0..<3).asyncMap { _ in try await members.subscribe(to: "jobs.>", queue: "workers") }
        let plain = try await members.subscribe(to: "jobs.>")
        try await members.flush()
        let producer = try await connectedClient([server.url], try fixture.user(name: "producer"))
        let count = 300
        for i in 0..<count { try await producer.publish(Data("\(i)".utf8), to: "jobs.\(i % 7)") }
        try await producer.flush()
        let all = try await collect(plain, count: count)
        #expect(all.count == count)
        // Read the members side by side until all messages are accounted for.
        let perMember = try await withTimeout(.seconds(20), "queue members") {
            try await withThrowingTaskGroup(of: [String].self) { group in
                let tally = Tally(target: count)
                for subscription in queue {
                    group.addTask {
                        var got: [String] = []
                        for try await message in subscription {
                            got.append(String(decoding: message.payload, as: UTF8.self))
                            if await tally.add() { break }
                        }
                        return got
                    }
                }
                var results: [[String]] = []
                for try await got in group {
                    results.append(got)
                    // The reader that reached the total returned first; the others are waiting: stop them.
                    group.cancelAll()
                }
                return results
            }
        }
        let seen = perMember.flatMap { $0 }
        #expect(seen.count == count)
        #expect(Set(seen).count == count)
        await producer.close()
        await members.close()
    }

    @Test("10 000 messages arrive complete and in order")
    func tenThousandInOrder() async throws {
        let subscriber = try await connectedClient([server.url], try fixture.user(name: "sub"))
        let subscription = try await subscriber.subscribe(to: "bulk.data")
        try await subscriber.flush()
        let publisher = try await connectedClient([server.url], try fixture.user(name: "pub"))
        let count = 10_000
        let receiving = Task { try await collect(subscription, count: count, within: .seconds(60)) }
        for i in 0..<count { try await publisher.publish(Data("\(i)".utf8), to: "bulk.data") }
        try await publisher.flush()
        let messages = try await receiving.value
        #expect(messages.count == count)
        #expect(messages.map { String(decoding: $0.payload, as: UTF8.self) } == (0..<count).map(String.init))
        await publisher.close()
        await subscriber.close()
    }

    @Test("an account JWT pushed like `nsc push` on $SYS.REQ.CLAIMS.UPDATE lets its users in")
    func pushAccount() async throws {
        let newAccount = try NKeyPair(type: .account, random: SystemRandomSource())
        let accountJWT = try AccountClaims(account: newAccount.publicKeyString, name: "member")
            .encode(signedBy: fixture.operatorKey, clock: SystemClock())
        let member = try fixture.user(of: newAccount, name: "member-user")
        await #expect(throws: NATSError.self) { _ = try await connectedClient([server.url], member) }

        let system = try await connectedClient([server.url], try fixture.systemUser)
        let message = try await system.pushAccountJWT(accountJWT)
        #expect(!message.isEmpty)
        #expect(message == "jwt updated")
        // What the resolver cannot decode is refused with its code and reason. (nats-server 2.9.10 stores an account
        // JWT signed by an untrusted operator and only refuses its users later, so the caller must push only JWTs it
        // signed itself.)
        do {
            _ = try await system.pushAccountJWT("not-a-jwt")
            Issue.record("the resolver accepted garbage")
        } catch NATSError.claimsUpdateRejected(let code, let description) {
            #expect(code == 500)
            #expect(description.contains("expected 3 chunks"))
        }
        await system.close()

        let client = try await connectedClient([server.url], member)
        let subscription = try await client.subscribe(to: "member.news")
        try await client.publish(Data("in".utf8), to: "member.news")
        #expect(try await collect(subscription, count: 1).first?.payload == Data("in".utf8))
        await client.close()
    }

    @Test("drain delivers what was routed, then closes; close fails pending work")
    func drainAndClose() async throws {
        let client = try await connectedClient([server.url], try fixture.user())
        let subscription = try await client.subscribe(to: "drain.me")
        for i in 0..<100 { try await client.publish(Data("\(i)".utf8), to: "drain.me") }
        try await client.drain()
        var received = 0
        for try await _ in subscription { received += 1 }
        #expect(received == 100)
        await #expect(throws: NATSError.connectionClosed) { try await client.publish(Data(), to: "drain.me") }
        await #expect(throws: NATSError.connectionClosed) { try await client.flush() }
    }

    @Test("reconnect after the server restarts: subscriptions restored, buffered messages delivered, full buffer fails")
    func serverRestart() async throws {
        let client = try await connectedClient([server.url], try fixture.user()) {
            $0.reconnectWait = .milliseconds(50)
            $0.maxReconnectAttempts = nil
            $0.outboundBufferSize = 64 * 1024
        }
        let events = await client.events()
        let subscription = try await client.subscribe(to: "restart.test")
        for i in 0..<10 { try await client.publish(Data("\(i)".utf8), to: "restart.test") }
        try await client.flush()

        server.kill()
        _ = try await waitForEvent(events) { if case .disconnected = $0 { return true } else { return false } }
        // Accepted while disconnected: kept for after the reconnect.
        for i in 10..<50 { try await client.publish(Data("\(i)".utf8), to: "restart.test") }
        // Until the bounded buffer is full.
        let big = Data(repeating: 0x41, count: 64 * 1024 - 200)
        await #expect(throws: NATSError.outboundBufferFull(limit: 64 * 1024)) {
            try await client.publish(big, to: "restart.test")
        }
        await #expect(throws: NATSError.disconnected) { try await client.flush() }

        try server.start()
        _ = try await waitForEvent(events) { if case .reconnected = $0 { return true } else { return false } }
        try await client.flush()
        let messages = try await collect(subscription, count: 50)
        #expect(messages.map { String(decoding: $0.payload, as: UTF8.self) } == (0..<50).map(String.init))
        // Another client's messages reach the restored subscription.
        let other = try await connectedClient([server.url], try fixture.user(name: "other"))
        try await other.publish(Data("after".utf8), to: "restart.test")
        #expect(try await collect(subscription, count: 1).first?.payload == Data("after".utf8))
        await other.close()
        await client.close()
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}

/// Counts messages across several readers; `add` returns true once the target is reached.
actor Tally {
    let target: Int
    var count = 0
    init(target: Int) { self.target = target }
    func add() -> Bool {
        count += 1
        return count >= target
    }
}
