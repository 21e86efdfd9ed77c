import Crypto
import Foundation
import Testing

@testable import DeviceAttestation
import DeviceAttestationTesting

/// The test authority's attestation objects and assertions pass the verifier exactly when its root is trusted.
struct AppAttestTestAuthorityTests {
    let app = AppAttestAppID(teamID: "TESSERA001", bundleID: "org.tessera.wallet.test")
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func authority() throws -> AppAttestTestAuthority {
        try AppAttestTestAuthority.generate(
            commonName: "Test App Attestation Root", notBefore: now.addingTimeInterval(-86_400),
            notAfter: now.addingTimeInterval(86_400 * 30), random: nil)
    }

    @Test func attestationVerifiesUnderTheTestRootOnly() throws {
        let authority = try authority()
        let key = P256.Signing.PrivateKey()
        let clientDataHash = Data(SHA256.hash(data: Data("challenge".utf8)))
        let attested = try authority.attest(
            publicKey: key.publicKey, app: app, environment: .development, clientDataHash: clientDataHash, at: now)
        let trusting = AppAttestVerifier(policy: AppAttestPolicy(
            apps: [app], allowedEnvironments: [.development], trustedRoots: [authority.rootCertificate]))
        let outcome = trusting.verifyAttestation(attested.attestationObject, clientDataHash: clientDataHash, keyID: attested.keyID, at: now)
        #expect(outcome.failures == [])
        #expect(outcome.facts?.environment == .development)
        #expect(outcome.facts?.publicKey.rawRepresentation == key.publicKey.rawRepresentation)

        let apple = AppAttestVerifier(policy: AppAttestPolicy(apps: [app], allowedEnvironments: [.development]))
        #expect(apple.verifyAttestation(attested.attestationObject, clientDataHash: clientDataHash, keyID: attested.keyID, at: now).failures == [.untrustedRoot])
        // Another client data hash, app or environment is caught by the rule that covers it.
        let other = Data(SHA256.hash(data: Data("other".utf8)))
        #expect(trusting.verifyAttestation(attested.attestationObject, clientDataHash: other, keyID: attested.keyID, at: now).failures == [.nonceMismatch])
        let production = AppAttestVerifier(policy: AppAttestPolicy(apps: [app], trustedRoots: [authority.rootCertificate]))
        #expect(production.verifyAttestation(attested.attestationObject, clientDataHash: clientDataHash, keyID: attested.keyID, at: now).failures == [.environmentNotAllowed])
    }

    @Test func assertionsCarryTheCounterAndTheSignature() throws {
        let key = P256.Signing.PrivateKey()
        let verifier = AppAttestVerifier(policy: AppAttestPolicy(apps: [app]))
        let clientData = Data(#"{"challenge":"x"}"#.utf8)
        let assertion = try AppAttestTestAuthority.assertion(key: key, app: app, clientData: clientData, counter: 7)
        let outcome = verifier.verifyAssertion(assertion, clientData: clientData, publicKey: key.publicKey, previousCounter: 6)
        #expect(outcome.failures == [])
        #expect(outcome.facts?.counter == 7)
        #expect(verifier.verifyAssertion(assertion, clientData: clientData, publicKey: key.publicKey, previousCounter: 7).failures == [.assertionCounterNotIncreasing])
        #expect(verifier.verifyAssertion(assertion, clientData: Data("y".utf8), publicKey: key.publicKey, previousCounter: 0).failures == [.assertionSignatureInvalid])
    }

    /// iOS 27 devices append Apple's extensions map (ED flag clear) to assertions too: read, checked against the
    /// category policy, and covered by the signature like the rest of the authenticator data.
    @Test func ios27AssertionsCarryTheExtensionsMap() throws {
        let key = P256.Signing.PrivateKey()
        let clientData = Data(#"{"challenge":"x"}"#.utf8)
        let extensions = AppAttestTestAuthority.ios27Extensions(bundleVersion: "42", validationCategory: 4)
        let assertion = try AppAttestTestAuthority.assertion(key: key, app: app, clientData: clientData, counter: 3, extensions: extensions)
        let verifier = AppAttestVerifier(policy: AppAttestPolicy(apps: [app], validationCategories: .only([4])))
        let outcome = verifier.verifyAssertion(assertion, clientData: clientData, publicKey: key.publicKey, previousCounter: 2)
        #expect(outcome.failures == [])
        #expect(outcome.facts?.extensions?.bundleVersion == "42")
        #expect(outcome.facts?.extensions?.validationCategory == 4)
        #expect(outcome.facts?.extensions?.encoding == .appleUnflagged)
        let testFlightOnly = AppAttestVerifier(policy: AppAttestPolicy(apps: [app], validationCategories: .only([2])))
        #expect(testFlightOnly.verifyAssertion(assertion, clientData: clientData, publicKey: key.publicKey, previousCounter: 2).failures == [.validationCategoryNotAllowed])
        // An assertion without the map (iOS 26 and earlier) passes `onlyOrMissing` but not `only`.
        let old = try AppAttestTestAuthority.assertion(key: key, app: app, clientData: clientData, counter: 4)
        let lenient = AppAttestVerifier(policy: AppAttestPolicy(apps: [app], validationCategories: .onlyOrMissing([4])))
        #expect(lenient.verifyAssertion(old, clientData: clientData, publicKey: key.publicKey, previousCounter: 3).failures == [])
        #expect(verifier.verifyAssertion(old, clientData: clientData, publicKey: key.publicKey, previousCounter: 3).failures == [.validationCategoryNotAllowed])
    }

    @Test func ios27AttestationsVerifyWithTheirExtensions() throws {
        let authority = try authority()
        let key = P256.Signing.PrivateKey()
        let clientDataHash = Data(SHA256.hash(data: Data("challenge".utf8)))
        let attested = try authority.attest(
            publicKey: key.publicKey, app: app, environment: .production, clientDataHash: clientDataHash, at: now,
            extensions: AppAttestTestAuthority.ios27Extensions(bundleVersion: "7", validationCategory: 4))
        let verifier = AppAttestVerifier(policy: AppAttestPolicy(apps: [app], trustedRoots: [authority.rootCertificate]))
        let outcome = verifier.verifyAttestation(attested.attestationObject, clientDataHash: clientDataHash, keyID: attested.keyID, at: now)
        #expect(outcome.failures == [])
        #expect(outcome.facts?.extensions?.bundleVersion == "7")
    }
}
