import DeviceAttestation
import Foundation
import TesseraJOSE
import Testing

/// Every Android sample of the shared vectors, at its validation_time, under the strict and the lenient encoding.
@Suite struct AndroidVectorTests {
    /// The inputs of one sample, as the vectors give them.
    struct Sample {
        let id: String
        let json: JSONValue
        let chain: [Data]
        let challenge: Data
        let application: AndroidApplication
        let instant: Date
        let revocationList: AndroidRevocationList

        init(_ json: JSONValue) throws {
            self.json = json
            let id = try json.string("id")
            self.id = id
            chain = try json.array("certificate_chain_b64").map { value in
                guard let text = value.stringValue else { throw BadFixture(description: "\(id): chain entry") }
                return try base64(text)
            }
            let expected = try json.member("expected")
            challenge = try base64(try expected.member("challenge").string("b64"))
            let digests = try expected.member("attestation_application_id").array("signature_digests_sha256_b64")
            application = AndroidApplication(
                packageName: try expected.string("package_name"),
                signingCertificateDigests: Set(try digests.map { try base64($0.stringValue ?? "?") }))
            instant = try DeviceAttestationTests.instant(try json.string("validation_time"))
            if let entries = json["revocation_list"]?["entries"] {
                let document = JSONValue.object(["entries": entries]).serialized()
                revocationList = try AndroidRevocationList(statusJSON: document)
            } else {
                revocationList = .empty
            }
        }

        func policy(_ encoding: AndroidAttestationPolicy.Encoding) -> AndroidAttestationPolicy {
            AndroidAttestationPolicy(applications: [application], revocationList: revocationList, encoding: encoding)
        }

        /// all_failures of expected_result, or of lenient_result under the lenient encoding when the vectors give one.
        func expectedFailures(_ encoding: AndroidAttestationPolicy.Encoding) throws -> [String] {
            if encoding == .lenient, let lenient = json["expected_result"]?["lenient_result"] {
                return try failures(try lenient.array("all_failures"))
            }
            return try failures(try json.member("expected_result").array("all_failures"))
        }
    }

    static func samples() throws -> [Sample] { try Fixtures.android().map(Sample.init) }

    @Test func theVectorsHoldTwentySevenSamples() throws {
        let samples = try Self.samples()
        #expect(samples.count == 27)
        #expect(samples.filter { (try? $0.expectedFailures(.strict).isEmpty) == true }.count == 9)
    }

    @Test(arguments: [AndroidAttestationPolicy.Encoding.strict, .lenient])
    func everySampleGivesItsExpectedFailures(encoding: AndroidAttestationPolicy.Encoding) throws {
        for sample in try Self.samples() {
            let outcome = AndroidKeyAttestationVerifier(policy: sample.policy(encoding))
                .verify(chain: sample.chain, challenge: sample.challenge, at: sample.instant)
            let expected = try sample.expectedFailures(encoding)
            #expect(outcome.failures.map(\.rawValue) == expected, "\(sample.id) (\(encoding)): \(outcome.diagnostics)")
            #expect(outcome.isValid == expected.isEmpty, "\(sample.id)")
            // Only an unreadable extension leaves no facts.
            #expect((outcome.facts == nil) == outcome.failures.contains(.malformedExtension), "\(sample.id)")
        }
    }

    @Test func theFactsAreTheExpectedOnes() throws {
        for sample in try Self.samples() {
            // Lenient decoding reads every sample, the non-DER boolean included.
            let outcome = AndroidKeyAttestationVerifier(policy: sample.policy(.lenient))
                .verify(chain: sample.chain, challenge: sample.challenge, at: sample.instant)
            guard let facts = outcome.facts else {
                Issue.record("\(sample.id): no facts")
                continue
            }
            let expected = try sample.json.member("expected")
            let levels = ["SOFTWARE": AndroidSecurityLevel.software, "TRUSTED_ENVIRONMENT": .trustedEnvironment,
                          "STRONG_BOX": .strongBox]
            let id = sample.id
            #expect(facts.attestationChallenge == sample.challenge, "\(id)")
            #expect(facts.packageNames.contains(sample.application.packageName), "\(id)")
            #expect(Set(facts.signingCertificateDigests) == sample.application.signingCertificateDigests, "\(id)")
            #expect(facts.attestationVersion == expected["attestation_version"]?.int64Value.map(Int.init), "\(id)")
            #expect(facts.keyMintVersion == expected["keymint_version"]?.int64Value.map(Int.init), "\(id)")
            #expect(facts.attestationSecurityLevel == levels[try expected.string("attestation_security_level")], "\(id)")
            #expect(facts.keyMintSecurityLevel == levels[try expected.string("keymint_security_level")], "\(id)")
            #expect(facts.leafPublicKeySPKI == (try base64(try expected.string("leaf_public_key_spki_b64"))), "\(id)")
            #expect(facts.osVersion == expected["os_version"]?.int64Value.map(Int.init), "\(id)")
            #expect(facts.osPatchLevel == expected["os_patch_level"]?.int64Value.map(Int.init), "\(id)")
            #expect(facts.vendorPatchLevel == expected["vendor_patch_level"]?.int64Value.map(Int.init), "\(id)")
            #expect(facts.bootPatchLevel == expected["boot_patch_level"]?.int64Value.map(Int.init), "\(id)")
            #expect(facts.creationDateTime == expected["creation_date_time_ms"]?.int64Value.map(Int.init), "\(id)")
            #expect(facts.deviceLocked == expected["device_locked"]?.boolValue, "\(id)")
            let states = ["VERIFIED": AndroidVerifiedBootState.verified, "UNVERIFIED": .unverified,
                          "SELF_SIGNED": .selfSigned, "FAILED": .failed]
            #expect(facts.verifiedBootState == expected["verified_boot_state"]?.stringValue.flatMap { states[$0] }, "\(id)")
            if let key = expected["verified_boot_key_b64"]?.stringValue {
                #expect(facts.verifiedBootKey == (try base64(key)), "\(id)")
            }
            if let hash = expected["verified_boot_hash_b64"]?.stringValue {
                #expect(facts.verifiedBootHash == (try base64(hash)), "\(id)")
            }
            if let ids = expected["attestation_ids"] {
                #expect(facts.deviceIDs.brand == ids["attestationIdBrand"]?.stringValue, "\(id)")
                #expect(facts.deviceIDs.model == ids["attestationIdModel"]?.stringValue, "\(id)")
                #expect(facts.deviceIDs.manufacturer == ids["attestationIdManufacturer"]?.stringValue, "\(id)")
            }
        }
    }

    /// The two tokay samples attest ML-DSA-65 keys, which swift-certificates cannot load: the chain still verifies
    /// (their issuers are EC/RSA) and the key is reported as received.
    @Test func anMLDSALeafKeyIsReportedAsReceived() throws {
        let samples = try Self.samples().filter { $0.id.contains("mldsa") }
        #expect(samples.count == 2)
        for sample in samples {
            let outcome = AndroidKeyAttestationVerifier(policy: sample.policy(.strict))
                .verify(chain: sample.chain, challenge: sample.challenge, at: sample.instant)
            #expect(!outcome.failures.contains(.certificateChainInvalid))
            let spki = try #require(outcome.facts?.leafPublicKeySPKI)
            // id-ml-dsa-65 (2.16.840.1.101.3.4.3.18) in the AlgorithmIdentifier.
            #expect(spki.range(of: Data([0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x12])) != nil)
        }
    }
}
