import Crypto
import DeviceAttestation
import Foundation
import TesseraCBOR
import TesseraJOSE
import Testing

/// Apple's 2026 "Attestation Object Validation Guide" sample: an iOS 27 attestation whose authenticator data ends
/// with Apple's extensions map while the ED flag is clear (flags 0x40, 226 bytes).
@Suite struct AppAttest2026GuideTests {
    struct Guide {
        let json: JSONValue
        let object: Data
        let keyID: Data
        let clientDataHash: Data
        let app: AppAttestAppID
        let instant: Date

        init() throws {
            json = try Fixtures.json("apple-app-attest-2026-guide")
            let attestation = try json.member("attestation")
            let expected = try json.member("expected")
            object = try base64(try attestation.string("attestation_object_b64"))
            keyID = try base64(try attestation.string("key_id_b64"))
            clientDataHash = try base64(try attestation.string("client_data_hash_b64"))
            app = AppAttestAppID(teamID: try expected.string("team_id"), bundleID: try expected.string("bundle_id"))
            instant = try DeviceAttestationTests.instant(try json.string("validation_time"))
        }

        func verify(
            object: Data? = nil, app: AppAttestAppID? = nil, environments: Set<AppAttestEnvironment> = [.production],
            categories: AppAttestValidationCategoryPolicy = .any, at: Date? = nil, clientDataHash: Data? = nil
        ) -> AttestationOutcome<AppAttestAttestation> {
            let policy = AppAttestPolicy(apps: [app ?? self.app], allowedEnvironments: environments, validationCategories: categories)
            return AppAttestVerifier(policy: policy).verifyAttestation(
                object ?? self.object, clientDataHash: clientDataHash ?? self.clientDataHash, keyID: keyID, at: at ?? instant)
        }

        /// The attestation object with its authData replaced (the nonce no longer matches, but parsing is what
        /// these variants test).
        func withAuthenticatorData(_ transform: (Data) -> Data) throws -> Data {
            guard case .map(var map) = try CBOR.decode(object, options: .init(deterministic: false)),
                let authData = map["authData"]?.bytesValue
            else { throw BadFixture(description: "attestation object") }
            map[.text("authData")] = .bytes(transform(authData))
            return CBOR.map(map).encoded()
        }
    }

    @Test func theGuideSampleVerifiesWithItsExtensionsAsFacts() throws {
        let guide = try Guide()
        let outcome = guide.verify()
        #expect(outcome.failures == [], "\(outcome.diagnostics)")
        let facts = try #require(outcome.facts)
        #expect(facts.keyID == guide.keyID)
        #expect(facts.environment == .production)
        #expect(facts.app == guide.app)
        #expect(facts.counter == 0)
        let extensions = try #require(facts.extensions)
        #expect(extensions.encoding == .appleUnflagged)
        #expect(extensions.bundleVersion == "1")
        #expect(extensions.validationCategory == 1)
        #expect(extensions.otherKeys.isEmpty)
        let expected = try guide.json.member("expected")
        #expect(facts.certificateExtensions == (try expected.array("certificate_extensions").compactMap(\.stringValue)))
        #expect(facts.extendedKeyUsages == ["1.2.840.113635.100.4.24"])
    }

    @Test func everyRuleStillAppliesToTheGuideSample() throws {
        let guide = try Guide()
        #expect(guide.verify(environments: [.development]).failures == [.environmentNotAllowed])
        #expect(guide.verify(app: AppAttestAppID(teamID: "1234567890", bundleID: "com.example.other")).failures == [.appIDMismatch])
        #expect(guide.verify(clientDataHash: Data(SHA256.hash(data: Data("example_server_challenge".utf8)))).failures == [.nonceMismatch])
        #expect(guide.verify(at: try instant("2026-05-01T00:00:00Z")).failures == [.certificateExpired])
    }

    @Test func theValidationCategoryPolicyIsApplied() throws {
        let guide = try Guide()
        #expect(guide.verify(categories: .only([1, 4])).failures == [])
        #expect(guide.verify(categories: .only([2])).failures == [.validationCategoryNotAllowed])
        #expect(guide.verify(categories: .onlyOrMissing([2])).failures == [.validationCategoryNotAllowed])
    }

    @Test func trailingBytesThatAreNotOneCBORMapAreStillRefused() throws {
        let guide = try Guide()
        let extensions = try Data(hex: "a2776170706c655f62756e646c655f76657273696f6e5f30316131781c6170706c655f76616c69646174696f6e5f63617465676f72795f30314401000000")
        var refused: [(String, Data)] = [
            ("a byte after the map", try guide.withAuthenticatorData { $0 + Data([0x00]) }),
            ("a CBOR array instead of a map", try guide.withAuthenticatorData { $0.dropLast(extensions.count) + Data([0x81, 0x01]) }),
            ("a text string instead of a map", try guide.withAuthenticatorData { $0.dropLast(extensions.count) + Data([0x61, 0x61]) }),
            ("a truncated map", try guide.withAuthenticatorData { $0.dropLast(1) }),
            ("two maps", try guide.withAuthenticatorData { $0 + Data([0xA0]) }),
            ("a map with an integer key", try guide.withAuthenticatorData { $0.dropLast(extensions.count) + Data([0xA1, 0x01, 0x01]) }),
        ]
        // A known key with the wrong type: the category as an integer instead of four bytes.
        refused.append(("a category that is not 4 bytes", try guide.withAuthenticatorData {
            $0.dropLast(5) + Data([0x01])
        }))
        for (name, object) in refused {
            let outcome = guide.verify(object: object)
            #expect(outcome.failures == [.malformed], "\(name): \(outcome.failures)")
            #expect(outcome.facts == nil, "\(name)")
        }
    }

    @Test func theSameMapBehindTheEDFlagIsTheWebAuthnEncoding() throws {
        let guide = try Guide()
        let flagged = try guide.withAuthenticatorData { data in
            var bytes = data
            bytes[bytes.startIndex + 32] |= 0x80
            return bytes
        }
        let outcome = guide.verify(object: flagged)
        // Changing the flags changes authData, so the nonce no longer matches; the map is read all the same.
        #expect(outcome.failures == [.nonceMismatch])
        #expect(outcome.facts?.extensions?.encoding == .webAuthnFlagged)
        #expect(outcome.facts?.extensions?.validationCategory == 1)
    }

    @Test func unknownExtensionKeysAreKeptByName() throws {
        let guide = try Guide()
        // {"apple_future_02": 7} in place of Apple's map.
        let map = CBOR.map(CBORMap([CBORMap.Entry(key: .text("apple_future_02"), value: .int(7))])).encoded()
        let original = try Data(hex: "a2776170706c655f62756e646c655f76657273696f6e5f30316131781c6170706c655f76616c69646174696f6e5f63617465676f72795f30314401000000")
        let object = try guide.withAuthenticatorData { $0.dropLast(original.count) + map }
        let outcome = guide.verify(object: object)
        #expect(outcome.failures == [.nonceMismatch])
        #expect(outcome.facts?.extensions?.otherKeys == ["apple_future_02"])
        #expect(outcome.facts?.extensions?.validationCategory == nil)
    }
}
