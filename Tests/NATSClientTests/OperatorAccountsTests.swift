import Crypto
import Foundation
import Testing
import TesseraCore

@testable import NATSClient

/// The per-user account the ledger and the vault hosts both derive from the operator seed.
@Suite("NATSOperatorIdentity: per-user accounts")
struct OperatorAccountsTests {
    let instant = Date(timeIntervalSince1970: 1_750_000_000)
    let identity: NATSOperatorIdentity

    init() throws {
        identity = try NATSOperatorIdentity(
            operatorKey: try NKeyPair(type: .operator, random: SeededRandomSource(seed: 7)),
            systemAccount: try NKeyPair(type: .account, random: SeededRandomSource(seed: 8)), name: "op",
            clock: FixedClock(Date(timeIntervalSince1970: 1_750_000_000)))
    }

    @Test("the account key is HKDF-SHA256 of the operator seed, one per user, the same every time")
    func accountKey() throws {
        let guid = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        let key = try identity.accountKey(userGUID: guid)
        #expect(key.type == .account)
        #expect(try identity.accountKey(userGUID: guid).publicKeyString == key.publicKeyString)
        #expect(try identity.accountKey(userGUID: guid + "x").publicKeyString != key.publicKeyString)
        // Recomputed independently: ikm = the encoded operator seed, the fixed salt, the guid as info.
        let seed = try #require(identity.operatorKey.seedString)
        let raw = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(seed.utf8)), salt: Data("tessera-ledger-nats-account-v1".utf8),
            info: Data(guid.utf8), outputByteCount: 32)
        let expected = try NKeyPair(type: .account, rawSeed: raw.withUnsafeBytes { Data($0) })
        #expect(key.publicKeyString == expected.publicKeyString)
        #expect(key.seedString == expected.seedString)
    }

    @Test("the account JWT: operator-signed, named vault-<guid>, with the revocations given")
    func accountJWT() throws {
        let guid = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        let user = try NKeyPair(type: .user, random: SeededRandomSource(seed: 9))
        let jwt = try identity.accountJWT(userGUID: guid, revocations: [user.publicKeyString: 1_749_000_000], clock: FixedClock(instant))
        let decoded = try NATSJWT<AccountClaims>(jwt)
        #expect(decoded.claims.iss == identity.operatorKey.publicKeyString)
        #expect(decoded.claims.sub == (try identity.accountKey(userGUID: guid)).publicKeyString)
        #expect(decoded.claims.name == "vault-" + guid)
        #expect(decoded.claims.iat == 1_750_000_000)
        #expect(decoded.claims.nats.revocations == [user.publicKeyString: 1_749_000_000])
        // Without revocations: what the ledger pushed before the field existed.
        let plain = try identity.accountJWT(userGUID: guid, clock: FixedClock(instant))
        let expected = try AccountClaims(account: decoded.claims.sub, name: "vault-" + guid)
            .encode(signedBy: identity.operatorKey, clock: FixedClock(instant))
        #expect(plain == expected)
        #expect(try NATSJWT<AccountClaims>(plain).claims.nats.revocations == nil)
    }
}
