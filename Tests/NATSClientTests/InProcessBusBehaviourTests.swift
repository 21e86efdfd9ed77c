import Foundation
import Testing
import TesseraCore

@testable import NATSClient
@testable import NATSClientTesting

/// What only the in-process bus needs checking for (nats-server's side is covered by `InProcessNATSServerTests`):
/// account updates, client-side checks, closing, concurrency and the subject index.
@Suite("InProcessNATSServer on its own")
struct InProcessBusBehaviourTests {
    let operatorKey: NKeyPair
    let server: InProcessNATSServer
    let account: NKeyPair
    let instant = Date(timeIntervalSince1970: 1_750_000_000)

    init() throws {
        operatorKey = try NKeyPair(type: .operator, random: SeededRandomSource(seed: 11))
        account = try NKeyPair(type: .account, random: SeededRandomSource(seed: 12))
        server = try InProcessNATSServer(
            operatorPublicKey: operatorKey.publicKeyString, clock: FixedClock(instant), random: SeededRandomSource(seed: 13))
        try server.updateAccount(jwt: accountJWT())
    }

    func accountJWT(issuedAt offset: TimeInterval = 0, revocations: [String: Int64] = [:]) throws -> String {
        try AccountClaims(account: account.publicKeyString, name: "a", revocations: revocations)
            .encode(signedBy: operatorKey, clock: FixedClock(instant.addingTimeInterval(offset)))
    }

    func connect(_ credentials: NATSCredentials? = nil) throws -> InProcessNATSConnection {
        try server.open(credentials: credentials ?? userCredentials(signedBy: account, issuedAt: instant), name: "t")
    }

    func subscriptionCount() -> Int {
        server.state.withLock { $0.accounts[account.publicKeyString]?.subscriptions.count ?? -1 }
    }

    @Test("the operator key must be an operator's; account JWTs must be the operator's and readable")
    func accountUpdates() throws {
        #expect(throws: NATSError.invalidPrefix(expected: "operator public key")) {
            _ = try InProcessNATSServer(operatorPublicKey: account.publicKeyString)
        }
        let other = try NKeyPair(type: .operator, random: SeededRandomSource(seed: 99))
        let foreign = try AccountClaims(account: account.publicKeyString, name: "a").encode(signedBy: other, clock: FixedClock(instant))
        #expect(throws: NATSError.claimsUpdateRejected(code: 500, description: "jwt validation failed: not signed by the trusted operator")) {
            try server.updateAccount(jwt: foreign)
        }
        do {
            try server.updateAccount(jwt: "not-a-jwt")
            Issue.record("garbage accepted")
        } catch NATSError.claimsUpdateRejected(let code, _) {
            #expect(code == 500)
        }
    }

    @Test("an account JWT older than the installed one is ignored, with its revocations")
    func olderAccountJWTIgnored() async throws {
        let key = try NKeyPair(type: .user, random: SeededRandomSource(seed: 21))
        let credentials = try userCredentials(signedBy: account, userKey: key, issuedAt: instant.addingTimeInterval(-100))
        try server.updateAccount(jwt: accountJWT(issuedAt: -10, revocations: [key.publicKeyString: Int64(instant.timeIntervalSince1970)]))
        let connection = try connect(credentials)
        try await connection.flush()
        try server.updateAccount(jwt: accountJWT(issuedAt: 10, revocations: [key.publicKeyString: Int64(instant.timeIntervalSince1970)]))
        await #expect(throws: NATSError.connectionClosed) { try await connection.flush() }
        #expect(throws: NATSError.authorizationViolation("Authorization Violation")) { _ = try connect(credentials) }
    }

    @Test("client-side checks as NATSClient makes them: subjects, queue names, headers, max_payload")
    func clientChecks() async throws {
        let connection = try connect()
        for subject in ["", "a..b", "a.", ".a", "a b", "a.*", "a.>", ">"] {
            await #expect(throws: NATSError.invalidSubject(subject)) { try await connection.publish(Data(), to: subject) }
        }
        await #expect(throws: NATSError.invalidSubject("r.*")) {
            try await connection.publish(Data(), to: "a", replyTo: "r.*", headers: nil)
        }
        await #expect(throws: NATSError.invalidSubject("a..b")) { _ = try await connection.subscribe(to: "a..b") }
        await #expect(throws: NATSError.invalidSubject("q q")) { _ = try await connection.subscribe(to: "a", queue: "q q") }
        await #expect(throws: NATSError.invalidHeader("Bad Name")) {
            try await connection.publish(Data(), to: "a", replyTo: nil, headers: NATSHeaders([("Bad Name", "v")]))
        }
        let limit = server.maxPayload
        let inbox = try await connection.subscribe(to: "big")
        try await connection.publish(Data(count: limit), to: "big")
        await #expect(throws: NATSError.payloadTooLarge(size: limit + 1, limit: limit)) {
            try await connection.publish(Data(count: limit + 1), to: "big")
        }
        var headers = NATSHeaders()
        headers.append("K", "v")
        let headerSize = try headers.encoded().count
        await #expect(throws: NATSError.payloadTooLarge(size: limit + 1, limit: limit)) {
            try await connection.publish(Data(count: limit + 1 - headerSize), to: "big", replyTo: nil, headers: headers)
        }
        #expect(try await collect(inbox, count: 1).first?.payload.count == limit)
        await connection.close()
    }

    @Test("headers arrive as a nats-server subscriber reads them back (values trimmed, order and repeats kept)")
    func headers() async throws {
        let connection = try connect()
        let inbox = try await connection.subscribe(to: "h")
        let sent = NATSHeaders([("A", "  padded "), ("b", "1"), ("B", "2")])
        try await connection.publish(Data("x".utf8), to: "h", replyTo: nil, headers: sent)
        try await connection.publish(Data("y".utf8), to: "h", replyTo: nil, headers: NATSHeaders())
        let messages = try await collect(inbox, count: 2)
        #expect(messages[0].headers == NATSHeaders([("A", "padded"), ("b", "1"), ("B", "2")]))
        #expect(messages[0].headers?.values(for: "b") == ["1", "2"])
        #expect(messages[1].headers == NATSHeaders())
        #expect(messages[1].status == nil)
        await connection.close()
    }

    @Test("close ends the subscriptions; afterwards every operation throws connectionClosed")
    func close() async throws {
        let connection = try connect()
        let inbox = try await connection.subscribe(to: "c.>")
        #expect(subscriptionCount() == 1)
        await connection.close()
        #expect(try await awaitEnd(of: inbox) == nil)
        #expect(subscriptionCount() == 0)
        await #expect(throws: NATSError.connectionClosed) { try await connection.publish(Data(), to: "c.x") }
        await #expect(throws: NATSError.connectionClosed) { _ = try await connection.subscribe(to: "c.x") }
        await #expect(throws: NATSError.connectionClosed) { try await connection.flush() }
        await connection.close()
    }

    @Test("unsubscribing, or cancelling the reader's task, removes the subscription")
    func unsubscribe() async throws {
        let connection = try connect()
        let first = try await connection.subscribe(to: "u")
        let second = try await connection.subscribe(to: "u")
        #expect(subscriptionCount() == 2)
        await first.unsubscribe()
        #expect(try await awaitEnd(of: first) == nil)
        #expect(subscriptionCount() == 1)
        let reader = Task { for try await _ in second {} }
        try await connection.publish(Data(), to: "u")
        reader.cancel()
        _ = await reader.result
        try await withTimeout(.seconds(5), "unsubscribe on cancel") {
            while subscriptionCount() != 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        await connection.close()
    }

    @Test("a user JWT with response permissions is refused rather than given other permissions than nats-server's")
    func responsePermissionsRefused() throws {
        let user = try NKeyPair(type: .user, random: SeededRandomSource(seed: 31))
        let jwt = try UserClaims(user: user.publicKeyString, name: "r", response: NATSResponsePermission(max: 1, ttl: 0))
            .encode(signedBy: account, clock: FixedClock(instant))
        #expect(throws: NATSError.authorizationViolation("Authorization Violation")) {
            _ = try connect(try NATSCredentials(jwt: jwt, userKey: user))
        }
    }

    @Test("concurrent publishers: every message delivered once, each publisher's in order")
    func concurrentPublishers() async throws {
        let subscriber = try connect()
        let inbox = try await subscriber.subscribe(to: "p.*")
        let publishers = 8, each = 500
        let receiving = Task { try await collect(inbox, count: publishers * each, within: .seconds(30)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for p in 0..<publishers {
                let connection = try connect()
                group.addTask {
                    for i in 0..<each { try await connection.publish(Data("\(i)".utf8), to: "p.\(p)") }
                }
            }
            try await group.waitForAll()
        }
        let messages = try await receiving.value
        for p in 0..<publishers {
            let mine = messages.filter { $0.subject == "p.\(p)" }.map { String(decoding: $0.payload, as: UTF8.self) }
            #expect(mine == (0..<each).map(String.init))
        }
    }

    @Test("queue members are drawn from the injected random source: the same seed, the same distribution")
    func reproducibleQueue() async throws {
        func distribution(seed: UInt64) async throws -> [Int] {
            let server = try InProcessNATSServer(
                operatorPublicKey: operatorKey.publicKeyString, clock: FixedClock(instant), random: SeededRandomSource(seed: seed))
            try server.updateAccount(jwt: accountJWT())
            let connection = try server.open(credentials: try userCredentials(signedBy: account, issuedAt: instant), name: "q")
            var members: [Subscription] = []
            for _ in 0..<3 { members.append(try await connection.subscribe(to: "q", queue: "g")) }
            for _ in 0..<300 { try await connection.publish(Data(), to: "q") }
            await connection.close()
            var counts: [Int] = []
            for member in members {
                var n = 0
                for try await _ in member { n += 1 }
                counts.append(n)
            }
            return counts
        }
        let first = try await distribution(seed: 5)
        #expect(first.reduce(0, +) == 300)
        #expect(first.allSatisfy { $0 > 50 })
        #expect(try await distribution(seed: 5) == first)
    }
}

@Suite("SubjectIndex: NATS wildcard matching")
struct SubjectIndexTests {
    @Test("literal subjects against patterns", arguments: [
        ("a.b.c", "a.b.c", true), ("a.b.c", "a.b", false), ("a.b", "a.b.c", false),
        ("a.*.c", "a.b.c", true), ("a.*", "a.b.c", false), ("*.*.*", "a.b.c", true),
        ("a.>", "a.b.c", true), ("a.>", "a.b", true), ("a.>", "a", false), (">", "a", true),
        ("a.*.>", "a.b.c.d", true), ("a.*.>", "a.b", false), ("a.b*", "a.b", false), ("a.b*", "a.b*", true),
    ])
    func literal(pattern: String, subject: String, matches: Bool) {
        let index = SubjectIndex(patterns: [pattern], value: true)
        #expect(index.contains(subject) == matches)
        #expect(index.matches(subject).count == (matches ? 1 : 0))
    }

    @Test("subscription subjects with wildcards are covered only by wider or equal patterns (nats-server sublist)", arguments: [
        ("a.*", "a.*", true), ("a.>", "a.*", true), ("a.>", "a.>", true), ("a.b", "a.*", false), (">", ">", true),
        ("a.b.>", "a.>", false), ("a.*.c", "a.*.c", true), ("a.b.c", "a.*.c", false),
    ])
    func wildcardSubjects(pattern: String, subject: String, covered: Bool) {
        #expect(SubjectIndex(patterns: [pattern], value: true).contains(subject) == covered)
    }

    @Test("many patterns: each value once per match; removal prunes")
    func index() {
        var index = SubjectIndex<Int>()
        let patterns = ["a.b", "a.*", "a.>", ">", "*.b", "a.b.c", "x.y"]
        for (i, pattern) in patterns.enumerated() { index.insert(pattern, i) }
        #expect(index.count == patterns.count)
        #expect(index.matches("a.b").sorted() == [0, 1, 2, 3, 4])
        #expect(index.matches("a.b.c").sorted() == [2, 3, 5])
        #expect(index.matches("q").sorted() == [3])
        for (i, pattern) in patterns.enumerated() { index.remove(pattern, i) }
        #expect(index.isEmpty)
        #expect(index.matches("a.b").isEmpty)
        index.remove("a.b", 0)
        #expect(index.count == 0)
    }
}
