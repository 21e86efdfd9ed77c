#if !canImport(DeviceCheck)
import Crypto
import DeviceAttestation
import DeviceCheckDouble
import Foundation
import TesseraTestSupport
import Testing
import WalletInstanceKit
import DeviceAttestationTesting

/// `AppAttestIntegrityService`, the Device Integrity Service the iOS wallet runs, on the DeviceCheck double: the
/// key it attests and the assertions it splits into the production IT-Wallet client's two fields pass the checks a
/// Wallet Provider makes (`AppAttestVerifier`).
@Suite struct AppAttestIntegrityServiceTests {
    let app = AppAttestAppID(teamID: "TESSERA001", bundleID: "org.tessera.wallet.test")
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let authority: AppAttestTestAuthority
    let device: AppAttestTestDevice
    let service = AppAttestIntegrityService()

    init() throws {
        authority = try AppAttestTestAuthority.generate(
            commonName: "Test App Attestation Root", notBefore: now.addingTimeInterval(-86_400),
            notAfter: now.addingTimeInterval(86_400 * 30), random: nil)
        let now = self.now
        device = AppAttestTestDevice(authority: authority, app: app, now: { now })
    }

    /// What the Wallet Provider trusts: the app, production keys, the test root.
    var verifier: AppAttestVerifier { AppAttestVerifier(policy: AppAttestPolicy(apps: [app], trustedRoots: [authority.rootCertificate])) }

    func attestedKey(challenge: String = "registration-nonce") async throws -> AttestedKey {
        try await DCAppAttestService.withScript(device) { try await service.createAttestedKey(challenge: challenge) }
    }

    @Test func theKeyIsAttestedForSHA256OfTheChallenge() async throws {
        let challenge = "registration-nonce"
        let key = try await attestedKey(challenge: challenge)
        let clientDataHash = Data(SHA256.hash(data: Data(challenge.utf8)))
        #expect(device.calls == [.generateKey, .attestKey(keyID: key.keyID, clientDataHash: clientDataHash)])
        // The hardware key tag is the keyId, as the provider knows the key by it.
        #expect(key.hardwareKeyTag == key.keyID)
        let keyID = try #require(Data(base64Encoded: key.keyID))
        let attestation = try #require(Data(base64Encoded: key.keyAttestation))
        let outcome = verifier.verifyAttestation(attestation, clientDataHash: clientDataHash, keyID: keyID, at: now)
        #expect(outcome.failures == [])
        #expect(outcome.facts?.publicKey.rawRepresentation == device.publicKey(key.keyID)?.rawRepresentation)
    }

    /// `hardware_signature` is the assertion's DER signature and `integrity_assertion` its authenticator data (what
    /// io-react-native-integrity's `decodeAssertion` sends); the provider checks them as two parts.
    @Test func proofsAreTheAssertionSplitAsTheProductionClientSendsIt() async throws {
        let key = try await attestedKey()
        let publicKey = try #require(device.publicKey(key.keyID))
        let clientData = Data(#"{"challenge":"token-nonce","jwk":{"kty":"EC"}}"#.utf8)
        let proofs = try await DCAppAttestService.withScript(device) {
            try await service.proofs(keyID: key.keyID, clientData: clientData)
        }
        #expect(device.calls.last == .generateAssertion(keyID: key.keyID, clientDataHash: Data(SHA256.hash(data: clientData))))
        let signature = try #require(Data(base64Encoded: proofs.hardwareSignature))
        let authenticatorData = try #require(Data(base64Encoded: proofs.integrityAssertion))
        let returned = try AppAttestAssertionObject(try #require(device.assertions.last))
        #expect(signature == returned.signature)
        #expect(authenticatorData == returned.authenticatorData)
        #expect((try? P256.Signing.ECDSASignature(derRepresentation: signature)) != nil)

        let outcome = verifier.verifyAssertion(
            signature: signature, authenticatorData: authenticatorData, clientData: clientData, publicKey: publicKey,
            previousCounter: 0)
        #expect(outcome.failures == [])
        #expect(outcome.facts?.counter == 1)
        #expect(outcome.facts?.app == app)
        // Bound to the client data.
        #expect(verifier.verifyAssertion(
            signature: signature, authenticatorData: authenticatorData, clientData: Data("other".utf8), publicKey: publicKey,
            previousCounter: 0).failures == [.assertionSignatureInvalid])
    }

    @Test func eachAssertionCarriesAHigherCounter() async throws {
        let key = try await attestedKey()
        let publicKey = try #require(device.publicKey(key.keyID))
        let clientData = Data("request".utf8)
        var previous: UInt32 = 0
        for expected in UInt32(1)...3 {
            let proofs = try await DCAppAttestService.withScript(device) { try await service.proofs(keyID: key.keyID, clientData: clientData) }
            let outcome = verifier.verifyAssertion(
                signature: try #require(Data(base64Encoded: proofs.hardwareSignature)),
                authenticatorData: try #require(Data(base64Encoded: proofs.integrityAssertion)), clientData: clientData,
                publicKey: publicKey, previousCounter: previous)
            #expect(outcome.failures == [])
            #expect(outcome.facts?.counter == expected)
            previous = expected
        }
    }

    /// Outside a script the double is a device without App Attest, as a simulator is.
    @Test func aDeviceWithoutAppAttestIsRefused() async throws {
        await #expect(throws: WalletInstanceError.integrity("App Attest is not supported on this device")) {
            try await service.createAttestedKey(challenge: "x")
        }
        device.setSupported(false)
        await #expect(throws: WalletInstanceError.integrity("App Attest is not supported on this device")) {
            try await DCAppAttestService.withScript(device) { try await service.createAttestedKey(challenge: "x") }
        }
        #expect(device.calls == [])
    }

    @Test func aRefusedAttestationIsAnIntegrityError() async throws {
        device.failNextAttestation(with: DCError(.serverUnavailable))
        let error = await integrityError { _ = try await attestedKey() }
        #expect(error?.hasPrefix("App Attest refused to attest the key") == true)
    }

    @Test func aRefusedAssertionIsAnIntegrityError() async throws {
        let key = try await attestedKey()
        device.failNextAssertion(with: DCError(.invalidKey))
        let error = await integrityError {
            _ = try await DCAppAttestService.withScript(device) { try await service.proofs(keyID: key.keyID, clientData: Data()) }
        }
        #expect(error?.hasPrefix("App Attest refused an assertion") == true)
    }

    @Test func anAssertionThatIsNotACBORMapIsAnIntegrityError() async throws {
        let key = try await attestedKey()
        device.returnNextAssertion(Data([0x82, 0x01, 0x02]))
        let error = await integrityError {
            _ = try await DCAppAttestService.withScript(device) { try await service.proofs(keyID: key.keyID, clientData: Data()) }
        }
        #expect(error?.hasPrefix("App Attest returned an assertion that is not a CBOR map") == true)
    }

    /// The completion-handler forms answer as the async ones do.
    @Test func theCompletionHandlerFormsAnswerToo() async throws {
        let keyID: String = try await DCAppAttestService.withScript(device) {
            let shared = DCAppAttestService.shared
            return try await withCheckedThrowingContinuation { continuation in
                shared.generateKey { keyID, error in
                    if let keyID { continuation.resume(returning: keyID) } else { continuation.resume(throwing: error ?? DCError(.unknownSystemFailure)) }
                }
            }
        }
        #expect(device.publicKey(keyID) != nil)
    }

    private func integrityError(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch WalletInstanceError.integrity(let why) {
            return why
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }
}
#endif
