import Crypto
import DeviceAttestation
import Foundation
import SwiftASN1
import TesseraCore
import Testing
import X509

/// Bad Android input gets `malformed` or `malformedExtension`, never a crash and never success.
@Suite struct AndroidMalformedInputTests {
    func ioWallet() throws -> AndroidVectorTests.Sample {
        try #require(try AndroidVectorTests.samples().first { $0.id == "android-pagopa-io-wallet-strongbox-2024" })
    }

    func verify(_ chain: [Data], _ sample: AndroidVectorTests.Sample, _ encoding: AndroidAttestationPolicy.Encoding = .strict)
        -> AttestationOutcome<AndroidKeyAttestation>
    {
        AndroidKeyAttestationVerifier(policy: sample.policy(encoding)).verify(chain: chain, challenge: sample.challenge, at: sample.instant)
    }

    @Test func noCertificatesOrGarbageIsMalformed() throws {
        let sample = try ioWallet()
        let random = SeededRandomSource(seed: 1)
        let inputs: [[Data]] = [
            [], [Data()], [Data([0x30, 0x00])], [Data([0x30, 0x80, 0x00, 0x00])], [random.bytes(1_000)],
            [Data([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF])], Array(repeating: sample.chain[0], count: 9),
            [Data(repeating: 0x30, count: 60) + Data(repeating: 0x80, count: 60)],
            [sample.chain[0], Data("not a certificate".utf8)],
        ]
        for chain in inputs {
            let outcome = verify(chain, sample)
            #expect(outcome.failures == [.malformed], "\(chain.map(\.count))")
            #expect(outcome.facts == nil)
            #expect(!outcome.diagnostics.isEmpty)
        }
    }

    @Test func everyTruncatedLeafIsMalformed() throws {
        let sample = try ioWallet()
        let leaf = sample.chain[0]
        for length in 0..<leaf.count {
            let outcome = verify([leaf.prefix(length)] + sample.chain.dropFirst(), sample)
            #expect(outcome.failures == [.malformed], "length \(length)")
        }
    }

    /// A flipped bit anywhere in the leaf: the chain never verifies and nothing crashes.
    @Test(arguments: [AndroidAttestationPolicy.Encoding.strict, .lenient])
    func everyBitFlipInTheLeafIsRefused(encoding: AndroidAttestationPolicy.Encoding) throws {
        let sample = try ioWallet()
        let leaf = sample.chain[0]
        for index in leaf.indices {
            var changed = leaf
            changed[index] ^= 0x04
            let outcome = verify([changed] + sample.chain.dropFirst(), sample, encoding)
            #expect(!outcome.isValid, "byte \(index)")
            #expect(!outcome.failures.isEmpty, "byte \(index)")
        }
    }

    /// deviceLocked written as BOOLEAN 0x01 (BER, not DER): strict decoding refuses the extension, lenient reads
    /// true. The edit breaks the leaf's signature, which both report.
    @Test func aBERBooleanIsMalformedOnlyWhenStrict() throws {
        let sample = try ioWallet()
        var leaf = sample.chain[0]
        // RootOfTrust: OCTET STRING (32-byte verifiedBootKey) then BOOLEAN TRUE.
        let key = try #require(sample.json["expected"]?["verified_boot_key_b64"]?.stringValue)
        let marker = Data([0x04, 0x20]) + (try base64(key)) + Data([0x01, 0x01, 0xFF])
        let range = try #require(leaf.range(of: marker))
        leaf[range.upperBound - 1] = 0x01
        let chain = [leaf] + sample.chain.dropFirst()
        #expect(verify(chain, sample, .strict).failures == [.certificateChainInvalid, .malformedExtension])
        let lenient = verify(chain, sample, .lenient)
        #expect(lenient.failures == [.certificateChainInvalid])
        #expect(lenient.facts?.deviceLocked == true)
    }

    /// A chain built here with swift-certificates, so the extension can be placed where the rules forbid it.
    struct CustomChain {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let instant = Date(timeIntervalSince1970: 1_767_225_600)

        func chain(leafExtensions: [Certificate.Extension], intermediateExtensions: [Certificate.Extension]) throws -> [Data] {
            let rootName = try DistinguishedName { CommonName("Custom Root") }
            let intermediateName = try DistinguishedName { CommonName("Custom Intermediate") }
            let start = instant.addingTimeInterval(-3_600)
            let end = instant.addingTimeInterval(3_600)
            let root = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: start,
                notValidAfter: end, issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) },
                issuerPrivateKey: .init(rootKey))
            let intermediate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey), notValidBefore: start,
                notValidAfter: end, issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions(intermediateExtensions), issuerPrivateKey: .init(rootKey))
            let leaf = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(P256.Signing.PrivateKey().publicKey),
                notValidBefore: start, notValidAfter: end, issuer: intermediateName,
                subject: try DistinguishedName { CommonName("Android Keystore Key") }, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions(leafExtensions), issuerPrivateKey: .init(intermediateKey))
            return try [leaf, intermediate, root].map { certificate in
                var serializer = DER.Serializer()
                try serializer.serialize(certificate)
                return Data(serializer.serializedBytes)
            }
        }

        var rootSPKI: Data { rootKey.publicKey.derRepresentation }
    }

    /// The KeyDescription of the io-wallet leaf, as an extension to copy into other certificates.
    func keyDescription() throws -> Certificate.Extension {
        let leaf = try Certificate(derEncoded: Array(try ioWallet().chain[0]))
        return try #require(leaf.extensions.first { $0.oid == [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17] })
    }

    @Test func theExtensionMustBeInTheLeafOnly() throws {
        let sample = try ioWallet()
        let custom = CustomChain()
        var policy = sample.policy(.strict)
        policy.trustedRootKeys = [custom.rootSPKI]
        let verifier = AndroidKeyAttestationVerifier(policy: policy)
        let ext = try keyDescription()

        let valid = try custom.chain(leafExtensions: [ext], intermediateExtensions: [])
        #expect(verifier.verify(chain: valid, challenge: sample.challenge, at: custom.instant).isValid)

        let alsoInIntermediate = try custom.chain(leafExtensions: [ext], intermediateExtensions: [ext])
        let outcome = verifier.verify(chain: alsoInIntermediate, challenge: sample.challenge, at: custom.instant)
        #expect(outcome.failures == [.malformedExtension])
        #expect(outcome.facts == nil)

        let missing = try custom.chain(leafExtensions: [], intermediateExtensions: [])
        #expect(verifier.verify(chain: missing, challenge: sample.challenge, at: custom.instant).failures == [.malformedExtension])

        let onlyInIntermediate = try custom.chain(leafExtensions: [], intermediateExtensions: [ext])
        #expect(verifier.verify(chain: onlyInIntermediate, challenge: sample.challenge, at: custom.instant).failures
            == [.malformedExtension])
    }

    /// KeyDescription values that are not the schema: each gives `malformedExtension` alone.
    @Test func extensionValuesThatAreNotTheSchemaAreMalformed() throws {
        let sample = try ioWallet()
        let custom = CustomChain()
        var policy = sample.policy(.lenient)
        policy.trustedRootKeys = [custom.rootSPKI]
        let verifier = AndroidKeyAttestationVerifier(policy: policy)
        let original = Array(try keyDescription().value)
        var values: [[UInt8]] = [[], [0x30, 0x00], [0x05, 0x00], original + [0x00], Array(original.dropLast())]
        // 60 nested SEQUENCEs: deeper than swift-asn1's limit of 50.
        var deep: [UInt8] = [0x02, 0x01, 0x00]
        for _ in 0..<60 { deep = [0x30, UInt8(deep.count)] + deep }
        values.append(deep)
        // attestationVersion (INTEGER 4) written with a redundant leading zero: not DER in either mode.
        try #require(Array(original.prefix(7)) == [0x30, 0x82, 0x01, 0x23, 0x02, 0x01, 0x04])
        values.append([0x30, 0x82, 0x01, 0x24, 0x02, 0x02, 0x00, 0x04] + original.dropFirst(7))
        for value in values {
            let ext = Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17], critical: false, value: ArraySlice(value))
            let chain = try custom.chain(leafExtensions: [ext], intermediateExtensions: [])
            let outcome = verifier.verify(chain: chain, challenge: sample.challenge, at: custom.instant)
            #expect(outcome.failures == [.malformedExtension], "\(value.prefix(8))…")
        }
    }
}
