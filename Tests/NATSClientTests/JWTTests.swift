import Foundation
import Testing
import TesseraCore

@testable import NATSClient

@Suite("NATS JWT minting")
struct JWTTests {
    let instant = Date(timeIntervalSince1970: 1_750_000_000)
    var clock: FixedClock { FixedClock(instant) }
    let operatorKey: NKeyPair
    let account: NKeyPair
    let user: NKeyPair

    init() throws {
        operatorKey = try NKeyPair(type: .operator, random: SeededRandomSource(seed: 1))
        account = try NKeyPair(type: .account, random: SeededRandomSource(seed: 2))
        user = try NKeyPair(type: .user, random: SeededRandomSource(seed: 3))
    }

    @Test("operator, account and user JWTs decode, verify and carry the v2 claim layout")
    func chain() throws {
        let operatorJWT = try OperatorClaims(
            operator: operatorKey.publicKeyString, name: "op", systemAccount: account.publicKeyString
        ).encode(signedBy: operatorKey, clock: clock)
        let decodedOperator = try NATSJWT<OperatorClaims>(operatorJWT)
        #expect(decodedOperator.claims.iss == operatorKey.publicKeyString)
        #expect(decodedOperator.claims.sub == operatorKey.publicKeyString)
        #expect(decodedOperator.claims.nats.system_account == account.publicKeyString)
        #expect(decodedOperator.claims.iat == 1_750_000_000)

        let accountJWT = try AccountClaims(account: account.publicKeyString, name: "APP")
            .encode(signedBy: operatorKey, clock: clock)
        let decodedAccount = try NATSJWT<AccountClaims>(accountJWT)
        #expect(decodedAccount.claims.nats.limits.conn == -1)
        #expect(decodedAccount.claims.nats.type == "account")
        #expect(decodedAccount.claims.nats.version == 2)

        let guid = "6f1c2a"
        let expiry = instant.addingTimeInterval(300)
        let userJWT = try UserClaims(
            user: user.publicKeyString, name: "bootstrap",
            publish: NATSPermission(allow: ["OwnerSpace.\(guid).forVault.app.bootstrap"]),
            subscribe: NATSPermission(allow: ["OwnerSpace.\(guid).forApp.app.bootstrap.>"]), expires: expiry
        ).encode(signedBy: account, clock: clock)
        let decodedUser = try NATSJWT<UserClaims>(userJWT)
        #expect(decodedUser.string == userJWT)
        #expect(decodedUser.claims.nats.pub.allow == ["OwnerSpace.\(guid).forVault.app.bootstrap"])
        #expect(decodedUser.claims.exp == Int64(expiry.timeIntervalSince1970))
        #expect(decodedUser.claims.nats.subs == -1)
        // jti: base32 (no padding) of a SHA-256 digest.
        #expect(decodedUser.claims.jti.count == 52)

        // The raw JSON uses the NATS member names.
        let payload = try #require(Base64URL.decodeIfValid(userJWT.split(separator: ".")[1]))
        let json = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        let nats = try #require(json["nats"] as? [String: Any])
        #expect(nats["type"] as? String == "user")
        #expect((nats["pub"] as? [String: Any])?["allow"] as? [String] == ["OwnerSpace.\(guid).forVault.app.bootstrap"])
        #expect(json["iss"] as? String == account.publicKeyString)
        let header = try #require(Base64URL.decodeIfValid(userJWT.split(separator: ".")[0]))
        #expect(String(decoding: header, as: UTF8.self) == #"{"typ":"JWT","alg":"ed25519-nkey"}"#)

        try decodedUser.validate(at: instant)
        #expect(throws: NATSError.jwtExpired) { try decodedUser.validate(at: expiry) }
    }

    @Test("the same claims at the same instant give the same JWT")
    func reproducible() throws {
        let claims = AccountClaims(account: account.publicKeyString, name: "APP")
        #expect(try claims.encode(signedBy: operatorKey, clock: clock) == claims.encode(signedBy: operatorKey, clock: clock))
    }

    @Test("issuer and subject kinds are enforced when minting")
    func wrongKinds() throws {
        // A user JWT signed by the operator, an account JWT signed by an account.
        #expect(throws: NATSError.self) {
            try UserClaims(user: user.publicKeyString, name: "u").encode(signedBy: operatorKey, clock: clock)
        }
        #expect(throws: NATSError.self) {
            try AccountClaims(account: account.publicKeyString, name: "a").encode(signedBy: account, clock: clock)
        }
        // The subject must be of the claimed kind.
        #expect(throws: NATSError.self) {
            try UserClaims(user: account.publicKeyString, name: "u").encode(signedBy: account, clock: clock)
        }
        // A public-only issuer cannot sign.
        let publicOnly = try NKeyPair(publicKey: account.publicKeyString)
        #expect(throws: NATSError.self) {
            try UserClaims(user: user.publicKeyString, name: "u").encode(signedBy: publicOnly, clock: clock)
        }
    }

    @Test("tampering, a wrong claim type and garbage are refused")
    func tampering() throws {
        let jwt = try UserClaims(user: user.publicKeyString, name: "u").encode(signedBy: account, clock: clock)
        let parts = jwt.split(separator: ".").map(String.init)
        // Claims changed after signing.
        var claims = String(decoding: try #require(Base64URL.decodeIfValid(parts[1])), as: UTF8.self)
        claims = claims.replacingOccurrences(of: "\"name\":\"u\"", with: "\"name\":\"v\"")
        let forged = parts[0] + "." + Base64URL.encode(Data(claims.utf8)) + "." + parts[2]
        #expect(throws: NATSError.invalidSignature) { try NATSJWT<UserClaims>(forged) }
        // A signature by another account key.
        let other = try NKeyPair(type: .account, random: SeededRandomSource(seed: 99))
        let otherSig = Base64URL.encode(try other.sign(Data((parts[0] + "." + parts[1]).utf8)))
        #expect(throws: NATSError.invalidSignature) { try NATSJWT<UserClaims>(parts[0] + "." + parts[1] + "." + otherSig) }
        // A user JWT read as account claims.
        #expect(throws: NATSError.self) { try NATSJWT<AccountClaims>(jwt) }
        for garbage in ["", "a.b", "a.b.c", "..", String(repeating: "x", count: 70_000)] {
            #expect(throws: NATSError.self) { try NATSJWT<UserClaims>(garbage) }
        }
        // alg "none" header.
        let none = Base64URL.encode(Data(#"{"typ":"JWT","alg":"none"}"#.utf8))
        #expect(throws: NATSError.self) { try NATSJWT<UserClaims>(none + "." + parts[1] + "." + parts[2]) }
    }

    @Test("creds files round-trip and malformed ones are refused")
    func creds() throws {
        let jwt = try UserClaims(user: user.publicKeyString, name: "u").encode(signedBy: account, clock: clock)
        let credentials = try NATSCredentials(jwt: jwt, userKey: user)
        let text = credentials.credsFile
        #expect(text.hasPrefix("-----BEGIN NATS USER JWT-----\n\(jwt)\n------END NATS USER JWT------\n"))
        #expect(text.contains("-----BEGIN USER NKEY SEED-----\n\(user.seedString ?? "-")\n------END USER NKEY SEED------"))
        let parsed = try NATSCredentials(credsFile: text)
        #expect(parsed.jwt == jwt)
        #expect(parsed.userKey.publicKeyString == user.publicKeyString)
        #expect(throws: NATSError.malformedCreds) { try NATSCredentials(credsFile: "-----BEGIN NATS USER JWT-----\nabc\n") }
        // An account seed where the user seed belongs.
        let accountSeed = try #require(account.seedString)
        let wrongSeed = text.replacingOccurrences(of: user.seedString ?? "-", with: accountSeed)
        #expect(throws: NATSError.invalidPrefix(expected: "user seed")) { try NATSCredentials(credsFile: wrongSeed) }
        #expect(throws: NATSError.self) { try NATSCredentials(jwt: jwt, userKey: account) }
    }

    @Test("the CONNECT signature of a nonce verifies under the user's public key")
    func nonceSignature() throws {
        let credentials = try NATSCredentials(jwt: "x", userKey: user)
        let sig = try credentials.signNonce("pJqTKZX4XpPqCqk")
        let raw = try #require(Base64URL.decodeIfValid(sig))
        #expect(user.verify(raw, for: Data("pJqTKZX4XpPqCqk".utf8)))
    }
}
