import Crypto
import DeviceAttestation
import Foundation
import TesseraCore
import Testing
import DeviceAttestationTesting

/// The test attestation authority issues chains the verifier reads like a device's.
@Suite struct AndroidTestAuthorityTests {
    let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    var end: Date { start.addingTimeInterval(365 * 86_400) }
    var now: Date { start.addingTimeInterval(86_400 + 0.25) }
    let application = AndroidApplication(
        packageName: "eu.tessera.wallet", signingCertificateDigests: [Data(repeating: 0xA5, count: 32), Data(repeating: 0x17, count: 32)])
    let challenge = Data("nonce-from-the-wallet-provider".utf8)

    func authority(seed: UInt64 = 7) throws -> AndroidTestAttestationAuthority {
        try AndroidTestAttestationAuthority.generate(
            commonName: "Tessera Test Attestation Root", notBefore: start, notAfter: end,
            random: SeededRandomSource(seed: seed))
    }

    func policy(_ authority: AndroidTestAttestationAuthority, encoding: AndroidAttestationPolicy.Encoding = .strict)
        -> AndroidAttestationPolicy
    {
        AndroidAttestationPolicy(trustedRootKeys: [authority.rootPublicKeySPKI], applications: [application], encoding: encoding)
    }

    @Test(arguments: [AndroidAttestationPolicy.Encoding.strict, .lenient])
    func anIssuedChainVerifiesUnderItsRootKey(encoding: AndroidAttestationPolicy.Encoding) throws {
        let authority = try authority()
        let key = P256.Signing.PrivateKey().publicKey
        let chain = try authority.attest(publicKey: key, challenge: challenge, application: application, at: now)
        #expect(chain.count == 3)
        let outcome = AndroidKeyAttestationVerifier(policy: policy(authority, encoding: encoding))
            .verify(chain: chain, challenge: challenge, at: now)
        #expect(outcome.failures == [], "\(outcome.diagnostics)")
        #expect(outcome.isValid)
        let facts = try #require(outcome.facts)
        #expect(facts.leafPublicKeySPKI == key.derRepresentation)
        #expect(facts.attestationChallenge == challenge)
        #expect(facts.packageNames == [application.packageName])
        #expect(Set(facts.signingCertificateDigests) == application.signingCertificateDigests)
        #expect(facts.attestationSecurityLevel == .trustedEnvironment)
        #expect(facts.keyMintSecurityLevel == .trustedEnvironment)
        #expect(facts.deviceLocked == true)
        #expect(facts.verifiedBootState == .verified)
        #expect(facts.osPatchLevel == 202_601)
        #expect(facts.creationDateTime == Int(now.timeIntervalSince1970 * 1000))
    }

    @Test func theGoogleRootsDoNotTrustIt() throws {
        let authority = try authority()
        let chain = try authority.attest(
            publicKey: P256.Signing.PrivateKey().publicKey, challenge: challenge, application: application, at: now)
        let outcome = AndroidKeyAttestationVerifier(policy: AndroidAttestationPolicy(applications: [application]))
            .verify(chain: chain, challenge: challenge, at: now)
        #expect(outcome.failures == [.untrustedRoot])
    }

    @Test func anotherChallengeIsAMismatch() throws {
        let authority = try authority()
        let chain = try authority.attest(
            publicKey: P256.Signing.PrivateKey().publicKey, challenge: challenge, application: application, at: now)
        let outcome = AndroidKeyAttestationVerifier(policy: policy(authority))
            .verify(chain: chain, challenge: challenge + Data([0]), at: now)
        #expect(outcome.failures == [.challengeMismatch])
    }

    @Test func anotherAppOrAnotherAuthorityIsRefused() throws {
        let authority = try authority()
        let chain = try authority.attest(
            publicKey: P256.Signing.PrivateKey().publicKey, challenge: challenge, application: application, at: now)
        var other = policy(authority)
        other.applications = [AndroidApplication(packageName: application.packageName, signingCertificateDigests: [Data(repeating: 1, count: 32)])]
        #expect(AndroidKeyAttestationVerifier(policy: other).verify(chain: chain, challenge: challenge, at: now).failures
            == [.signingCertificateMismatch])
        // A chain of one authority under another authority's root key.
        let stranger = try self.authority(seed: 8)
        #expect(AndroidKeyAttestationVerifier(policy: policy(stranger)).verify(chain: chain, challenge: challenge, at: now).failures
            == [.untrustedRoot])
        // Leaf and intermediate from different authorities do not chain.
        let mixed = [chain[0]] + (try stranger.attest(
            publicKey: P256.Signing.PrivateKey().publicKey, challenge: challenge, application: application, at: now).dropFirst())
        #expect(AndroidKeyAttestationVerifier(policy: policy(stranger)).verify(chain: mixed, challenge: challenge, at: now).failures
            == [.certificateChainInvalid])
    }

    @Test func validityIsChecked() throws {
        let authority = try authority()
        let chain = try authority.attest(
            publicKey: P256.Signing.PrivateKey().publicKey, challenge: challenge, application: application, at: now)
        let verifier = AndroidKeyAttestationVerifier(policy: policy(authority))
        #expect(verifier.verify(chain: chain, challenge: challenge, at: end.addingTimeInterval(1)).failures == [.certificateExpired])
        #expect(verifier.verify(chain: chain, challenge: challenge, at: now.addingTimeInterval(-2)).failures == [.certificateNotYetValid])
        #expect(throws: DeviceAttestationError.self) {
            try authority.attest(
                publicKey: P256.Signing.PrivateKey().publicKey, challenge: challenge, application: application,
                at: end.addingTimeInterval(10))
        }
        #expect(throws: DeviceAttestationError.self) {
            try authority.attest(
                publicKey: P256.Signing.PrivateKey().publicKey, challenge: Data(count: 129), application: application, at: now)
        }
    }

    @Test func theSameSeedGivesTheSameKeys() throws {
        #expect(try authority(seed: 42).rootPublicKeySPKI == authority(seed: 42).rootPublicKeySPKI)
        #expect(try authority(seed: 42).rootPublicKeySPKI != authority(seed: 43).rootPublicKeySPKI)
    }

    @Test func pemExportAndImportKeepTheAuthority() throws {
        let authority = try authority()
        let files = try authority.pemFiles()
        #expect(files.rootCertificate.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(files.rootKey.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let restored = try AndroidTestAttestationAuthority(pem: files)
        #expect(restored.rootPublicKeySPKI == authority.rootPublicKeySPKI)
        let chain = try restored.attest(
            publicKey: P256.Signing.PrivateKey().publicKey, challenge: challenge, application: application, at: now)
        #expect(AndroidKeyAttestationVerifier(policy: policy(authority)).verify(chain: chain, challenge: challenge, at: now).isValid)

        var swapped = files
        swapped.rootKey = files.intermediateKey
        #expect(throws: DeviceAttestationError.keyMismatch("the root key does not belong to the root certificate")) {
            try AndroidTestAttestationAuthority(pem: swapped)
        }
        var foreign = files
        let other = try self.authority(seed: 99).pemFiles()
        foreign.intermediateCertificate = other.intermediateCertificate
        foreign.intermediateKey = other.intermediateKey
        #expect(throws: DeviceAttestationError.keyMismatch("the root did not issue the intermediate certificate")) {
            try AndroidTestAttestationAuthority(pem: foreign)
        }
        var garbage = files
        garbage.intermediateKey = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        #expect(throws: DeviceAttestationError.self) { try AndroidTestAttestationAuthority(pem: garbage) }
    }

    @Test func aDirectoryKeepsTheAuthorityWithPrivateKeyFiles() throws {
        let authority = try authority()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-attest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try authority.write(toDirectory: directory)
        let restored = try AndroidTestAttestationAuthority(directory: directory)
        #expect(restored.rootPublicKeySPKI == authority.rootPublicKeySPKI)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("root-key.pem").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(throws: DeviceAttestationError.self) {
            try AndroidTestAttestationAuthority(directory: directory.appendingPathComponent("missing"))
        }
    }
}
