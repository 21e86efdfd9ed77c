import Crypto
import Foundation
import TesseraTrust
import Testing
import X509

@testable import TesseraJOSE

/// The cache may only skip what it proved before: the same strings, the same anchors, an instant inside every
/// certificate's validity; the JWS signature is verified every time and failures are never remembered.
@Suite("X5CChainCache")
struct X5CChainCacheTests {
    typealias PKI = JWSX5CTests.PKI
    static let instant = JWSX5CTests.instant

    @Test func aValidatedChainIsRememberedAndTheSignatureStillVerified() async throws {
        let pki = try PKI(seed: 1)
        let cache = X5CChainCache()
        let anchors = [pki.root.certificate]
        let jws = try pki.signed(x5c: try pki.x5c())
        #expect(try await jws.verifyX5C(anchors: anchors, at: Self.instant, cache: cache) == pki.leaf.certificate)
        #expect(cache.count == 1)
        // Another JWS with the same chain: served from the cache.
        let second = try pki.signed(x5c: try pki.x5c())
        #expect(try await second.verifyX5C(anchors: anchors, at: Self.instant.addingTimeInterval(60), cache: cache) == pki.leaf.certificate)
        // Same chain, signed by another key: the cached leaf key refuses it.
        let forged = try pki.signed(x5c: try pki.x5c(), key: .es256(P256.Signing.PrivateKey()))
        #expect(await joseError { _ = try await forged.verifyX5C(anchors: anchors, at: Self.instant, cache: cache) } == .invalidSignature)
        #expect(cache.count == 1)
    }

    @Test func outsideTheValidityTheChainIsValidatedAgainAndFailsInFull() async throws {
        let pki = try PKI(seed: 1)
        let cache = X5CChainCache()
        let jws = try pki.signed(x5c: try pki.x5c())
        _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant, cache: cache)
        let later = Self.instant.addingTimeInterval(86_400 * 60)
        guard case .x5cChainInvalid(let failures) = await joseError({ _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: later, cache: cache) })
        else {
            Issue.record("an expired chain was served from the cache")
            return
        }
        #expect(failures.count == 3 && failures.allSatisfy { $0.contains("expired") })
        let earlier = Self.instant.addingTimeInterval(-86_400 * 2)
        #expect(await joseError { _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: earlier, cache: cache) } != nil)
    }

    @Test func otherAnchorsDoNotSeeTheEntry() async throws {
        let pki = try PKI(seed: 1)
        let other = try PKI(seed: 2, rootName: "Other Root")
        let cache = X5CChainCache()
        let jws = try pki.signed(x5c: try pki.x5c())
        _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant, cache: cache)
        let expected = TrustError.untrustedRoot(issuer: pki.intermediate.certificate.issuer.description).description
        #expect(await joseError { _ = try await jws.verifyX5C(anchors: [other.root.certificate], at: Self.instant, cache: cache) } == .x5cChainInvalid([expected]))
    }

    @Test func failuresAreNotRemembered() async throws {
        let pki = try PKI(seed: 1, leafKeyUsage: KeyUsage(keyAgreement: true))
        let cache = X5CChainCache()
        let jws = try pki.signed(x5c: try pki.x5c())
        for _ in 0..<2 {
            #expect(await joseError { _ = try await jws.verifyX5C(anchors: [pki.root.certificate], at: Self.instant, cache: cache) } != nil)
        }
        #expect(cache.count == 0)
    }

    @Test func theLeastRecentlyUsedChainMakesRoom() async throws {
        let pkis = try (1...3).map { try PKI(seed: UInt64($0), rootName: "Root \($0)") }
        let anchors = pkis.map(\.root.certificate)
        let cache = X5CChainCache(capacity: 2)
        let tokens = try pkis.map { try $0.signed(x5c: try $0.x5c()) }
        _ = try await tokens[0].verifyX5C(anchors: anchors, at: Self.instant, cache: cache)
        _ = try await tokens[1].verifyX5C(anchors: anchors, at: Self.instant, cache: cache)
        _ = try await tokens[0].verifyX5C(anchors: anchors, at: Self.instant, cache: cache)  // 0 used last, 1 is oldest
        _ = try await tokens[2].verifyX5C(anchors: anchors, at: Self.instant, cache: cache)
        #expect(cache.count == 2)
        let strings = try pkis.map { pki in try pki.x5c().arrayValue?.compactMap(\.stringValue) ?? [] }
        #expect(cache.lookup(strings[0], anchors: anchors, at: Self.instant) != nil)
        #expect(cache.lookup(strings[1], anchors: anchors, at: Self.instant) == nil)
        #expect(cache.lookup(strings[2], anchors: anchors, at: Self.instant) != nil)
    }
}
