import Foundation
import Testing
import TesseraCore

@testable import NATSClient
import NATSClientTesting

/// The same scenarios on the in-process bus and on a real nats-server in operator mode: what vault code sees must
/// not depend on which one it runs on. Each scenario pushes its own accounts (signed by the fixture's operator).
@Suite("InProcessNATSServer and nats-server apply the same rules", .serialized, .timeLimit(.minutes(2)))
struct InProcessNATSServerTests {
    @Test("allowed publish and subscribe: wildcards, reply subjects, headers, order", arguments: BusKind.allCases)
    func allowed(_ kind: BusKind) async throws {
        let bus = try await BusUnderTest(kind)
        let account = try await bus.newAccount()
        let space = "OwnerSpace.0f1e2d"
        let vault = try await bus.connect(
            try userCredentials(
                signedBy: account, publish: NATSPermission(allow: [space + ".forApp.>"]),
                subscribe: NATSPermission(allow: [space + ".forVault.>"])), name: "vault")
        let app = try await bus.connect(
            try userCredentials(
                signedBy: account, publish: NATSPermission(allow: [space + ".forVault.>"]),
                subscribe: NATSPermission(allow: [space + ".forApp.>"])), name: "app")
        let commands = try await vault.subscribe(to: space + ".forVault.>")
        try await vault.flush()
        let replies = try await app.subscribe(to: space + ".forApp.*.*.*.*")
        try await app.flush()

        // A request as the vault gets it: dotted type, reply subject, headers; the reply is an ordinary publish.
        var headers = NATSHeaders()
        headers.append("Tessera-Event", "e1")
        let replyTo = space + ".forApp.secrets.datastore.add.e1"
        try await app.publish(Data("{}".utf8), to: space + ".forVault.secrets.datastore.add", replyTo: replyTo, headers: headers)
        let command = try #require(try await collect(commands, count: 1).first)
        #expect(command.subject == space + ".forVault.secrets.datastore.add")
        #expect(command.replyTo == replyTo)
        #expect(command.headers?["tessera-event"] == "e1")
        #expect(command.payload == Data("{}".utf8))
        try await vault.publish(Data("done".utf8), to: try #require(command.replyTo))
        let reply = try #require(try await collect(replies, count: 1).first)
        #expect(reply.subject == replyTo)
        #expect(reply.payload == Data("done".utf8))
        #expect(reply.headers == nil)

        // One publisher's messages arrive in order.
        for i in 0..<200 { try await app.publish(Data("\(i)".utf8), to: space + ".forVault.bulk") }
        try await app.flush()
        let bulk = try await collect(commands, count: 200)
        #expect(bulk.map { String(decoding: $0.payload, as: UTF8.self) } == (0..<200).map(String.init))

        // After unsubscribing, nothing more is delivered and the sequence ends.
        await commands.unsubscribe()
        try await vault.flush()
        try await app.publish(Data("late".utf8), to: space + ".forVault.bulk")
        try await app.flush()
        var late = 0
        for try await _ in commands { late += 1 }
        #expect(late == 0)
        await app.close()
        await vault.close()
        await bus.shutdown()
    }

    @Test("forbidden publish and subscribe are refused, deny wins, and the connection survives", arguments: BusKind.allCases)
    func forbidden(_ kind: BusKind) async throws {
        let bus = try await BusUnderTest(kind)
        let account = try await bus.newAccount()
        let space = "OwnerSpace.9a8b7c"
        let observer = try await bus.connect(try userCredentials(signedBy: account), name: "observer")
        let everything = try await observer.subscribe(to: space + ".>")
        try await observer.flush()
        let user = try await bus.connect(
            try userCredentials(
                signedBy: account,
                publish: NATSPermission(allow: [space + ".forVault.>"], deny: [space + ".forVault.admin.>"]),
                subscribe: NATSPermission(allow: [space + ".forApp.>"], deny: [space + ".forApp.private"])), name: "app")

        await expectPublishRefused(user, space + ".forApp.x")
        await expectPublishRefused(user, space + ".forVault.admin.reset")
        await expectPublishRefused(user, "elsewhere")
        try await expectSubscriptionRefused(user, space + ".forVault.>")
        try await expectSubscriptionRefused(user, space + ".>")
        try await expectSubscriptionRefused(user, ">")
        try await expectSubscriptionRefused(user, space + ".forApp.private")
        try await expectSubscriptionRefused(user, space + ".forVault.cmd", queue: "workers")

        // Covered by the allow pattern: allowed, and the denied subject is filtered out of the wider subscription.
        let inbox = try await user.subscribe(to: space + ".forApp.>")
        let one = try await user.subscribe(to: space + ".forApp.*")
        try await user.flush()
        try await observer.publish(Data("secret".utf8), to: space + ".forApp.private")
        try await observer.publish(Data("hello".utf8), to: space + ".forApp.public")
        try await observer.flush()
        #expect(try await collect(inbox, count: 1).map(\.subject) == [space + ".forApp.public"])
        #expect(try await collect(one, count: 1).map(\.subject) == [space + ".forApp.public"])

        // The refusals did not close the connection: allowed publications still flow.
        try await user.publish(Data("ok".utf8), to: space + ".forVault.ping")
        try await user.flush()
        let seen = try await collect(everything, count: 3)
        #expect(seen.map(\.subject) == [space + ".forApp.private", space + ".forApp.public", space + ".forVault.ping"])
        await user.close()
        await observer.close()
        await bus.shutdown()
    }

    @Test("accounts are isolated: the same subject in two accounts never meets", arguments: BusKind.allCases)
    func isolation(_ kind: BusKind) async throws {
        let bus = try await BusUnderTest(kind)
        let alice = try await bus.newAccount(name: "alice")
        let bob = try await bus.newAccount(name: "bob")
        let inAlice = try await bus.connect(try userCredentials(signedBy: alice))
        let inBob = try await bus.connect(try userCredentials(signedBy: bob))
        let aliceNews = try await inAlice.subscribe(to: "shared.>")
        try await inAlice.flush()
        let bobNews = try await inBob.subscribe(to: "shared.news")
        try await inBob.flush()

        try await inBob.publish(Data("from bob".utf8), to: "shared.news")
        try await inBob.flush()
        try await inAlice.publish(Data("from alice".utf8), to: "shared.news")
        try await inAlice.flush()
        #expect(try await collect(aliceNews, count: 1).map(\.payload) == [Data("from alice".utf8)])
        #expect(try await collect(bobNews, count: 1).map(\.payload) == [Data("from bob".utf8)])
        // A user signed by one account that names another in `issuer_account` gets nowhere either.
        await expectConnectRefused(bus, try userCredentials(signedBy: alice, issuerAccount: bob.publicKeyString), "alice's user in bob")
        await inAlice.close()
        await inBob.close()
        await bus.shutdown()
    }

    @Test("queue group: each message to one member; a plain subscriber gets all", arguments: BusKind.allCases)
    func queueGroup(_ kind: BusKind) async throws {
        let bus = try await BusUnderTest(kind)
        let account = try await bus.newAccount()
        let workers = try await bus.connect(try userCredentials(signedBy: account))
        let members = try await (0..<3).asyncMap { _ in try await workers.subscribe(to: "jobs.*", queue: "workers") }
        let plain = try await workers.subscribe(to: "jobs.>")
        try await workers.flush()
        let producer = try await bus.connect(try userCredentials(signedBy: account))
        let count = 90
        for i in 0..<count { try await producer.publish(Data("\(i)".utf8), to: "jobs.\(i % 4)") }
        try await producer.flush()
        #expect(try await collect(plain, count: count).count == count)
        let tally = Tally(target: count)
        let perMember = try await withTimeout(.seconds(20), "queue members") {
            try await withThrowingTaskGroup(of: [String].self) { group in
                for subscription in members {
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
                    group.cancelAll()
                }
                return results
            }
        }
        let seen = perMember.flatMap { $0 }
        #expect(seen.count == count)
        #expect(Set(seen) == Set((0..<count).map(String.init)))
        await producer.close()
        await workers.close()
        await bus.shutdown()
    }

    @Test("revocation closes the live connection and refuses it again; `iat` ≤ revocation time is revoked", arguments: BusKind.allCases)
    func revocation(_ kind: BusKind) async throws {
        let bus = try await BusUnderTest(kind)
        let operatorKey = bus.fixture.operatorKey
        let account = try NKeyPair(type: .account, random: SystemRandomSource())
        let now = Date()
        func accountJWT(_ revocations: [String: Int64]) throws -> String {
            try AccountClaims(account: account.publicKeyString, name: "vault-test", revocations: revocations)
                .encode(signedBy: operatorKey, clock: FixedClock(now))
        }
        try await bus.push(try accountJWT([:]))
        let seconds = Int64(now.timeIntervalSince1970)
        let revokedKey = try NKeyPair(type: .user, random: SystemRandomSource())
        let revoked = try userCredentials(signedBy: account, userKey: revokedKey, issuedAt: now.addingTimeInterval(-10))
        let bystander = try userCredentials(signedBy: account, issuedAt: now.addingTimeInterval(-2))

        let connection = try await bus.connect(revoked, name: "peer")
        let inbox = try await connection.subscribe(to: "MessageSpace.x.forOwner.>")
        try await connection.flush()
        let other = try await bus.connect(bystander, name: "bystander")
        let otherInbox = try await other.subscribe(to: "MessageSpace.x.forOwner.>")
        try await other.flush()

        try await bus.push(try accountJWT([revokedKey.publicKeyString: seconds - 5]))
        let ending = try await awaitEnd(of: inbox)
        // nats-server closes the socket (the client's subscriptions end when its reconnect is refused); the
        // in-process bus ends them with the reason.
        if let ending { #expect(ending as? NATSError == .authorizationViolation("User Authentication Revoked")) }
        await connection.close()
        await expectConnectRefused(bus, revoked, "the revoked JWT")
        await expectConnectRefused(
            bus, try userCredentials(signedBy: account, userKey: revokedKey, issuedAt: now.addingTimeInterval(-5)),
            "a JWT issued in the second of the revocation")
        let renewed = try await bus.connect(
            try userCredentials(signedBy: account, userKey: revokedKey, issuedAt: now.addingTimeInterval(-4)))
        await renewed.close()

        // The other user was not touched, until every user issued up to a later instant is revoked (`*`).
        try await other.publish(Data("still here".utf8), to: "MessageSpace.x.forOwner.message")
        #expect(try await collect(otherInbox, count: 1).first?.payload == Data("still here".utf8))
        try await bus.push(try accountJWT([revokedKey.publicKeyString: seconds - 5, AccountClaims.allUsers: seconds - 1]))
        _ = try await awaitEnd(of: otherInbox)
        await other.close()
        await expectConnectRefused(bus, bystander, "a user issued before the `*` revocation")
        await bus.shutdown()
    }

    @Test("refused credentials: expired, wrongly signed, unknown account, foreign operator, seed not the JWT's", arguments: BusKind.allCases)
    func refusedCredentials(_ kind: BusKind) async throws {
        let bus = try await BusUnderTest(kind)
        let account = try await bus.newAccount()
        await expectConnectRefused(bus, try userCredentials(signedBy: account, expires: Date().addingTimeInterval(-60)), "expired")

        // The claims of a valid JWT with the signature of another key.
        let valid = try userCredentials(signedBy: account)
        let parts = valid.jwt.split(separator: ".")
        let signed = "\(parts[0]).\(parts[1])"
        let forger = try NKeyPair(type: .account, random: SystemRandomSource())
        let forged = signed + "." + Base64URL.encode(try forger.sign(Data(signed.utf8)))
        await expectConnectRefused(bus, try NATSCredentials(jwt: forged, userKey: valid.userKey), "wrongly signed")

        let unknown = try NKeyPair(type: .account, random: SystemRandomSource())
        await expectConnectRefused(bus, try userCredentials(signedBy: unknown), "account never pushed")

        // An account of another operator: the in-process bus refuses its JWT; nats-server 2.9.10 stores it but
        // refuses its users, which is what matters here.
        let foreignOperator = try NKeyPair(type: .operator, random: SystemRandomSource())
        let foreign = try NKeyPair(type: .account, random: SystemRandomSource())
        let foreignJWT = try AccountClaims(account: foreign.publicKeyString, name: "foreign")
            .encode(signedBy: foreignOperator, clock: SystemClock())
        _ = try? await bus.push(foreignJWT)
        await expectConnectRefused(bus, try userCredentials(signedBy: foreign), "account of another operator")

        // Proof of possession: the creds' seed must be the key the JWT names.
        let stranger = try NKeyPair(type: .user, random: SystemRandomSource())
        await expectConnectRefused(bus, try NATSCredentials(jwt: valid.jwt, userKey: stranger), "seed of another user")

        let connection = try await bus.connect(valid)
        await connection.close()
        await bus.shutdown()
    }

    @Test("account signing keys: a listed key may issue users (issuer_account), another may not", arguments: BusKind.allCases)
    func signingKeys(_ kind: BusKind) async throws {
        let bus = try await BusUnderTest(kind)
        let signer = try NKeyPair(type: .account, random: SystemRandomSource())
        let account = try await bus.newAccount(signingKeys: [signer.publicKeyString])
        let issued = try await bus.connect(try userCredentials(signedBy: signer, issuerAccount: account.publicKeyString))
        let inbox = try await issued.subscribe(to: "a.b")
        try await issued.flush()
        let direct = try await bus.connect(try userCredentials(signedBy: account))
        try await direct.publish(Data("same account".utf8), to: "a.b")
        #expect(try await collect(inbox, count: 1).first?.payload == Data("same account".utf8))
        let unlisted = try NKeyPair(type: .account, random: SystemRandomSource())
        await expectConnectRefused(
            bus, try userCredentials(signedBy: unlisted, issuerAccount: account.publicKeyString), "unlisted signing key")
        await expectConnectRefused(bus, try userCredentials(signedBy: signer), "signing key without issuer_account")
        await issued.close()
        await direct.close()
        await bus.shutdown()
    }

    @Test("a user JWT without permissions gets the account's default permissions", arguments: BusKind.allCases)
    func defaultPermissions(_ kind: BusKind) async throws {
        let bus = try await BusUnderTest(kind)
        let account = try await bus.newAccount(
            defaultPermissions: .init(pub: NATSPermission(allow: ["in.>"]), sub: NATSPermission(allow: ["out.>"])))
        let user = try await bus.connect(try userCredentials(signedBy: account))
        await expectPublishRefused(user, "out.x")
        try await expectSubscriptionRefused(user, "in.x")
        let own = try await bus.connect(try userCredentials(signedBy: account, subscribe: NATSPermission(allow: ["in.>"])))
        let inbox = try await own.subscribe(to: "in.x")
        try await own.flush()
        try await user.publish(Data("default allows".utf8), to: "in.x")
        try await user.flush()
        #expect(try await collect(inbox, count: 1).first?.payload == Data("default allows".utf8))
        await user.close()
        await own.close()
        await bus.shutdown()
    }
}
