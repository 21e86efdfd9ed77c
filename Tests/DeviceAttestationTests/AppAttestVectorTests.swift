import Crypto
import DeviceAttestation
import Foundation
import TesseraJOSE
import Testing
import X509

/// Every App Attest attestation object of the shared vectors, at its validation_time.
@Suite struct AppAttestVectorTests {
    struct Sample {
        let id: String
        let json: JSONValue
        let object: Data
        let clientDataHash: Data
        let keyID: Data
        let app: AppAttestAppID
        let environment: AppAttestEnvironment
        let instant: Date

        init(_ json: JSONValue) throws {
            self.json = json
            id = try json.string("id")
            let attestation = try json.member("attestation")
            let expected = try json.member("expected")
            object = try base64(try attestation.string("attestation_object_b64"))
            clientDataHash = try base64(try attestation.string("client_data_hash_b64"))
            keyID = try base64(try attestation.string("key_id_b64"))
            app = AppAttestAppID(teamID: try expected.string("team_id"), bundleID: try expected.string("bundle_id"))
            guard let environment = AppAttestEnvironment(rawValue: try expected.string("environment")) else {
                throw BadFixture(description: "\(id): environment")
            }
            self.environment = environment
            instant = try DeviceAttestationTests.instant(try json.string("validation_time"))
        }

        func verify(
            allowing environments: Set<AppAttestEnvironment> = [.production, .development], app: AppAttestAppID? = nil,
            clientDataHash: Data? = nil, keyID: Data? = nil, at: Date? = nil
        ) -> AttestationOutcome<AppAttestAttestation> {
            let policy = AppAttestPolicy(apps: [app ?? self.app], allowedEnvironments: environments)
            return AppAttestVerifier(policy: policy).verifyAttestation(
                object, clientDataHash: clientDataHash ?? self.clientDataHash, keyID: keyID ?? self.keyID,
                at: at ?? instant)
        }
    }

    static func samples() throws -> [Sample] {
        try Fixtures.apple().filter { $0["attestation"] != nil }.map(Sample.init)
    }

    @Test func theVectorsHoldThirteenAttestations() throws {
        let samples = try Self.samples()
        #expect(samples.count == 13)
        #expect(samples.filter { $0.environment == .development }.count == 11)
    }

    @Test func everyAttestationIsValidWhenItsEnvironmentIsAllowed() throws {
        for sample in try Self.samples() {
            let outcome = sample.verify()
            #expect(outcome.failures == [], "\(sample.id): \(outcome.diagnostics)")
            #expect(outcome.isValid, "\(sample.id)")
            let facts = try #require(outcome.facts, "\(sample.id)")
            let expected = try sample.json.member("expected")
            #expect(facts.keyID == sample.keyID, "\(sample.id)")
            #expect(facts.keyID == (try base64(try expected.string("credential_id_b64"))), "\(sample.id)")
            #expect(facts.publicKey.derRepresentation == (try base64(try expected.string("public_key_spki_b64"))))
            #expect(facts.app == sample.app, "\(sample.id)")
            #expect(facts.environment == sample.environment, "\(sample.id)")
            #expect(facts.counter == 0, "\(sample.id)")
            #expect(!facts.receipt.isEmpty, "\(sample.id)")
        }
    }

    @Test func aProductionOnlyPolicyRefusesDevelopmentAttestations() throws {
        for sample in try Self.samples() {
            let outcome = sample.verify(allowing: [.production])
            let expected: [AttestationFailure] = sample.environment == .development ? [.environmentNotAllowed] : []
            #expect(outcome.failures == expected, "\(sample.id)")
        }
    }

    /// The vectors' client data hash is SHA-256 of the client data they give (a check of the fixtures themselves).
    @Test func theClientDataHashesAreTheHashesOfTheClientData() throws {
        for sample in try Self.samples() {
            let clientData = try base64(try sample.json.member("attestation").member("client_data").string("b64"))
            #expect(Data(SHA256.hash(data: clientData)) == sample.clientDataHash, "\(sample.id)")
        }
    }

    @Test func everyAttestationVariantGivesItsFailure() throws {
        var count = 0
        for sample in try Self.samples() {
            for variant in try sample.json.array("negative_variants") where variant["applies_to"] == nil {
                let change = try variant.member("change")
                var name = failureName(try variant.string("expected_failure"))
                // "environment_mismatch (production attestation, verifier expects development)" is, in this API,
                // a policy that allows only the development environment refusing a production attestation.
                if name == "environment_mismatch" { name = AttestationFailure.environmentNotAllowed.rawValue }
                let expected = try #require(AttestationFailure(rawValue: name), "\(sample.id) \(name)")

                var environments: Set<AppAttestEnvironment> = [.production, .development]
                if change["allow_development_environment"]?.boolValue == false { environments = [.production] }
                if let only = change["expected_environment"]?.stringValue {
                    environments = [try #require(AppAttestEnvironment(rawValue: only))]
                }
                let app = change["team_id"]?.stringValue.map { AppAttestAppID(teamID: $0, bundleID: sample.app.bundleID) }
                let outcome = sample.verify(
                    allowing: environments, app: app,
                    clientDataHash: try change["client_data_hash_b64"]?.stringValue.map(base64),
                    keyID: try change["key_id_b64"]?.stringValue.map(base64),
                    at: try change["validation_time"]?.stringValue.map(instant))
                #expect(outcome.failures == [expected], "\(sample.id) \(change)")
                count += 1
            }
        }
        #expect(count == 78)
    }

    /// Several broken rules are all reported, in the order of Apple's steps.
    @Test func everyBrokenRuleIsReportedInStepOrder() throws {
        let sample = try #require(try Self.samples().first { $0.environment == .development })
        let outcome = sample.verify(
            allowing: [.production], app: AppAttestAppID(teamID: "AAAAAAAAAA", bundleID: sample.app.bundleID),
            clientDataHash: Data(repeating: 0, count: 32), keyID: Data(repeating: 0, count: 32),
            at: sample.instant.addingTimeInterval(3 * 365 * 86_400))
        #expect(outcome.failures == [.certificateExpired, .nonceMismatch, .keyIDMismatch, .appIDMismatch, .environmentNotAllowed])
        #expect(outcome.facts?.keyID == sample.keyID)  // the facts still say which key the attestation proves
    }

    /// A different root (here the Apple receipt root, Apple Root CA - G3) does not anchor App Attest chains.
    @Test func anotherRootIsUntrusted() throws {
        let sample = try #require(try Self.samples().first)
        let receiptRoot = try Certificate(
            pemEncoded: try Fixtures.roots().member("apple_receipt_root_informational").string("pem"))
        let policy = AppAttestPolicy(apps: [sample.app], allowedEnvironments: [.development, .production], trustedRoots: [receiptRoot])
        let outcome = AppAttestVerifier(policy: policy).verifyAttestation(
            sample.object, clientDataHash: sample.clientDataHash, keyID: sample.keyID, at: sample.instant)
        #expect(outcome.failures == [.untrustedRoot])
        let none = AppAttestVerifier(policy: AppAttestPolicy(apps: [sample.app], allowedEnvironments: [.development], trustedRoots: []))
        #expect(none.verifyAttestation(sample.object, clientDataHash: sample.clientDataHash, keyID: sample.keyID, at: sample.instant)
            .failures == [.untrustedRoot])
    }
}
