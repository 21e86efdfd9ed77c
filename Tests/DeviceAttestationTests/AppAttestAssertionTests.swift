import Crypto
import DeviceAttestation
import Foundation
import TesseraJOSE
import Testing

/// Every App Attest assertion of the shared vectors.
@Suite struct AppAttestAssertionTests {
    struct Sample {
        let id: String
        let json: JSONValue
        let object: Data
        let clientData: Data
        let publicKey: P256.Signing.PublicKey
        let previousCounter: UInt32
        let expectedCounter: UInt32
        let app: AppAttestAppID

        init(_ json: JSONValue) throws {
            self.json = json
            id = try json.string("id")
            let assertion = try json.member("assertion")
            let expected = try json.member("expected")
            object = try base64(try assertion.string("assertion_object_b64"))
            clientData = try base64(try assertion.member("client_data").string("b64"))
            publicKey = try p256Key(jwk: try assertion.member("public_key_jwk"))
            guard let previous = assertion["previous_counter"]?.int64Value.flatMap(UInt32.init(exactly:)),
                let next = assertion["expected_counter"]?.int64Value.flatMap(UInt32.init(exactly:))
            else { throw BadFixture(description: "\(id): counters") }
            previousCounter = previous
            expectedCounter = next
            app = AppAttestAppID(teamID: try expected.string("team_id"), bundleID: try expected.string("bundle_id"))
        }

        func verify(
            app: AppAttestAppID? = nil, clientData: Data? = nil, previousCounter: UInt32? = nil
        ) -> AttestationOutcome<AppAttestAssertion> {
            AppAttestVerifier(policy: AppAttestPolicy(apps: [app ?? self.app])).verifyAssertion(
                object, clientData: clientData ?? self.clientData, publicKey: publicKey,
                previousCounter: previousCounter ?? self.previousCounter)
        }
    }

    static func samples() throws -> [Sample] { try Fixtures.apple().filter { $0["assertion"] != nil }.map(Sample.init) }

    @Test func everyAssertionIsValid() throws {
        let samples = try Self.samples()
        #expect(samples.count == 11)
        for sample in samples {
            let outcome = sample.verify()
            #expect(outcome.failures == [], "\(sample.id)")
            #expect(outcome.facts?.counter == sample.expectedCounter, "\(sample.id)")
            #expect(outcome.facts?.app == sample.app, "\(sample.id)")
            #expect(outcome.isValid, "\(sample.id)")
        }
    }

    /// The assertion verifies with the key the attestation of the same sample proved (attest once, then assert).
    @Test func theAttestedKeyVerifiesTheAssertion() throws {
        var count = 0
        for json in try Fixtures.apple() where json["attestation"] != nil && json["assertion"] != nil {
            let attestation = try AppAttestVectorTests.Sample(json)
            let assertion = try Sample(json)
            let key = try #require(attestation.verify().facts?.publicKey, "\(attestation.id)")
            let policy = AppAttestPolicy(apps: [attestation.app], allowedEnvironments: [.production, .development])
            let outcome = AppAttestVerifier(policy: policy).verifyAssertion(
                assertion.object, clientData: assertion.clientData, publicKey: key, previousCounter: 0)
            #expect(outcome.isValid, "\(attestation.id)")
            count += 1
        }
        #expect(count == 10)
    }

    @Test func everyAssertionVariantGivesItsFailure() throws {
        var count = 0
        for sample in try Self.samples() {
            for variant in try sample.json.array("negative_variants") where variant["applies_to"]?.stringValue == "assertion" {
                let change = try variant.member("change")
                let expected = try #require(AttestationFailure(rawValue: failureName(try variant.string("expected_failure"))))
                var clientData = sample.clientData
                if change["client_data"]?.stringValue != nil {
                    // "clientData with any byte changed": flip each byte in turn.
                    for index in clientData.indices {
                        var changed = clientData
                        changed[index] ^= 0x01
                        #expect(sample.verify(clientData: changed).failures == [expected], "\(sample.id) byte \(index)")
                    }
                    count += 1
                    continue
                }
                if let utf8 = change["client_data"]?["utf8"]?.stringValue { clientData = Data(utf8.utf8) }
                let app = change["team_id"]?.stringValue.map { AppAttestAppID(teamID: $0, bundleID: sample.app.bundleID) }
                let previous = change["previous_counter"]?.int64Value.flatMap(UInt32.init(exactly:))
                let outcome = sample.verify(app: app, clientData: clientData, previousCounter: previous)
                #expect(outcome.failures == [expected], "\(sample.id) \(change)")
                count += 1
            }
        }
        #expect(count == 34)
    }

    @Test func anotherKeyDoesNotVerifyTheAssertion() throws {
        let sample = try #require(try Self.samples().first)
        let other = P256.Signing.PrivateKey().publicKey
        let outcome = AppAttestVerifier(policy: AppAttestPolicy(apps: [sample.app])).verifyAssertion(
            sample.object, clientData: sample.clientData, publicKey: other, previousCounter: 0)
        #expect(outcome.failures == [.assertionSignatureInvalid])
    }

    /// The signed message is nonce = SHA-256(authenticatorData ‖ SHA-256(clientData)), which ECDSA hashes once more.
    /// Verifying over the nonce's preimage (so that the nonce itself is the ECDSA digest) fails.
    @Test func theNonceIsHashedOnceMore() throws {
        let sample = try #require(try Self.samples().first)
        let assertion = try sample.json.member("assertion")
        let nonce = try base64(try assertion.string("nonce_b64"))
        let authenticatorData = try base64(try assertion.string("authenticator_data_b64"))
        #expect(Data(SHA256.hash(data: authenticatorData + Data(SHA256.hash(data: sample.clientData)))) == nonce)
        let signature = try P256.Signing.ECDSASignature(derRepresentation: try base64(try assertion.string("signature_der_b64")))
        #expect(sample.publicKey.isValidSignature(signature, for: nonce))
        let preimage = authenticatorData + Data(SHA256.hash(data: sample.clientData))
        #expect(!sample.publicKey.isValidSignature(signature, for: preimage))
    }

    /// Several broken rules are all reported, in the order of Apple's assertion steps.
    @Test func everyBrokenRuleIsReportedInStepOrder() throws {
        let sample = try #require(try Self.samples().first)
        let outcome = sample.verify(
            app: AppAttestAppID(teamID: "AAAAAAAAAA", bundleID: sample.app.bundleID), clientData: Data("other".utf8),
            previousCounter: .max)
        #expect(outcome.failures == [.assertionSignatureInvalid, .appIDMismatch, .assertionCounterNotIncreasing])
        #expect(outcome.facts?.counter == sample.expectedCounter)
    }
}
