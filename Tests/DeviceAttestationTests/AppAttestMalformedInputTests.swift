import Crypto
import DeviceAttestation
import Foundation
import TesseraCBOR
import TesseraCore
import Testing

/// Bad App Attest input gets `malformed`, never a crash and never success.
@Suite struct AppAttestMalformedInputTests {
    func sample() throws -> AppAttestVectorTests.Sample {
        try #require(try AppAttestVectorTests.samples().first { $0.id == "ios-warden-ios16-prod" })
    }

    func verify(_ object: Data, _ sample: AppAttestVectorTests.Sample) -> AttestationOutcome<AppAttestAttestation> {
        AppAttestVerifier(policy: AppAttestPolicy(apps: [sample.app], allowedEnvironments: [.production, .development]))
            .verifyAttestation(object, clientDataHash: sample.clientDataHash, keyID: sample.keyID, at: sample.instant)
    }

    /// The sample's attestation object with one top-level field replaced.
    func object(_ sample: AppAttestVectorTests.Sample, replacing key: String, with value: CBOR?) throws -> Data {
        let map = try #require(try CBOR.decode(sample.object).mapValue)
        var edited = CBORMap()
        for entry in map where entry.key != .text(key) { edited.append(key: entry.key, value: entry.value) }
        if let value { edited.append(key: .text(key), value: value) }
        return CBOR.map(edited).encoded()
    }

    @Test func garbageIsMalformed() throws {
        let sample = try sample()
        let random = SeededRandomSource(seed: 2)
        for input in [Data(), Data([0xA0]), Data([0xFF]), random.bytes(64), random.bytes(4_000), Data(repeating: 0x9F, count: 100),
                      Data(count: 70_000)] {
            let outcome = verify(input, sample)
            #expect(outcome.failures == [.malformed], "\(input.prefix(4).hex)")
            #expect(outcome.facts == nil)
        }
    }

    @Test func everyTruncationIsMalformed() throws {
        let sample = try sample()
        for length in stride(from: 0, to: sample.object.count, by: 3) {
            #expect(verify(sample.object.prefix(length), sample).failures == [.malformed], "length \(length)")
        }
    }

    @Test func wrongStructuresAreMalformed() throws {
        let sample = try sample()
        let statement = try #require(try CBOR.decode(sample.object)["attStmt"]?.mapValue)
        let authData = try #require(try CBOR.decode(sample.object)["authData"]?.bytesValue)
        let receipt = try #require(statement["receipt"])
        let objects: [Data] = [
            try object(sample, replacing: "fmt", with: "packed"),
            try object(sample, replacing: "fmt", with: nil),
            try object(sample, replacing: "attStmt", with: nil),
            try object(sample, replacing: "attStmt", with: ["x5c": [], "receipt": receipt]),
            try object(sample, replacing: "attStmt", with: ["x5c": ["not bytes"], "receipt": receipt]),
            try object(sample, replacing: "attStmt", with: ["x5c": [.bytes(Data([0x30, 0x00]))], "receipt": receipt]),
            try object(sample, replacing: "attStmt", with: ["x5c": statement["x5c"] ?? .null]),
            try object(sample, replacing: "authData", with: .bytes(authData.prefix(36))),
            try object(sample, replacing: "authData", with: .bytes(authData.prefix(60))),
            try object(sample, replacing: "authData", with: .bytes(authData + Data([0x00]))),
            try object(sample, replacing: "authData", with: .text("authData")),
            CBOR.array([]).encoded(),
        ]
        for input in objects {
            let outcome = verify(input, sample)
            #expect(outcome.failures == [.malformed], "\(outcome.diagnostics)")
        }
    }

    /// A flipped bit anywhere in the object is never accepted and never crashes.
    @Test func everyBitFlipIsRefused() throws {
        let sample = try sample()
        for index in sample.object.indices {
            var changed = sample.object
            changed[index] ^= 0x10
            let outcome = verify(changed, sample)
            if outcome.isValid {
                // Flips inside the receipt are not covered by any signature this verifier checks (the receipt is
                // validated by Apple's server); everything else must be refused.
                #expect(outcome.facts?.receipt != (try CBOR.decode(sample.object)["attStmt"]?["receipt"]?.bytesValue), "byte \(index)")
            }
        }
    }

    @Test func badAssertionsAreMalformed() throws {
        let json = try #require(try Fixtures.apple().first { $0["assertion"] != nil })
        let assertion = try AppAssertion(json)
        let verifier = AppAttestVerifier(policy: AppAttestPolicy(apps: [assertion.app]))
        let map = try #require(try CBOR.decode(assertion.object).mapValue)
        let authenticatorData = try #require(map["authenticatorData"]?.bytesValue)
        let signature = try #require(map["signature"])
        var inputs = (0..<assertion.object.count).map { assertion.object.prefix($0) }
        inputs += [
            Data(), Data(count: 5_000),
            CBOR.map(CBORMap([.init(key: "signature", value: signature)])).encoded(),
            CBOR.map(CBORMap([.init(key: "signature", value: signature),
                              .init(key: "authenticatorData", value: .bytes(authenticatorData.prefix(36)))])).encoded(),
            CBOR.map(CBORMap([.init(key: "signature", value: "text"),
                              .init(key: "authenticatorData", value: .bytes(authenticatorData))])).encoded(),
        ]
        for input in inputs {
            let outcome = verifier.verifyAssertion(input, clientData: assertion.clientData, publicKey: assertion.publicKey, previousCounter: 0)
            #expect(outcome.failures == [.malformed], "\(input.count) bytes")
        }
        // A signature that is not DER is an invalid signature, not a malformed assertion.
        let notDER = CBOR.map(CBORMap([.init(key: "signature", value: .bytes(Data([1, 2, 3]))),
                                       .init(key: "authenticatorData", value: .bytes(authenticatorData))])).encoded()
        #expect(verifier.verifyAssertion(notDER, clientData: assertion.clientData, publicKey: assertion.publicKey, previousCounter: 0)
            .failures == [.assertionSignatureInvalid])
    }

    typealias AppAssertion = AppAttestAssertionTests.Sample
}
