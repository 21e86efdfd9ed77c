import Crypto
import Foundation
import SwiftASN1
import TesseraTrust
import Testing
import X509
import TesseraTrustTesting

@Suite("Test PKI creation")
struct TestPKITests {
    @Test("the created IACA root carries every B.1.2 extension with the right criticality")
    func iacaExtensions() throws {
        let iaca = try GeneratedPKI().iaca.root.certificate
        #expect(iaca.version == .v3)
        #expect(iaca.subject == iaca.issuer)
        #expect(iaca.subject.description == "CN=Utopia IACA,O=Utopia DMV,C=UT")
        #expect(try iaca.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(iaca.extensions[oid: .X509ExtensionID.basicConstraints]?.critical == true)
        #expect(try iaca.extensions.keyUsage == KeyUsage(keyCertSign: true, cRLSign: true))
        #expect(iaca.extensions[oid: .X509ExtensionID.keyUsage]?.critical == true)
        #expect(try iaca.extensions.subjectKeyIdentifier == SubjectKeyIdentifier(hash: iaca.publicKey))
        #expect(try iaca.extensions.issuerAlternativeName?.names == [.uniformResourceIdentifier("https://dmv.utopia.example")])
        #expect(iaca.extensions[oid: OID.issuerAltName]?.critical == false)
        #expect(iaca.notValidBefore == GeneratedPKI.now)
        #expect(iaca.notValidAfter == GeneratedPKI.now.addingTimeInterval(9 * 365 * 86_400))
        #expect(iaca.signatureAlgorithm == .ecdsaWithSHA256)
    }

    @Test("the created Document Signer carries every B.1.3 extension, inherits country, IAN and the IACA's SKI")
    func documentSignerExtensions() throws {
        let pki = try GeneratedPKI(stateOrProvince: "North", crlURI: "https://dmv.utopia.example/crl")
        let ds = pki.documentSigner.certificate
        let iaca = pki.iaca.root.certificate
        #expect(ds.issuer == iaca.subject)
        #expect(ds.subject.description == "CN=Utopia DS 1,ST=North,C=UT")
        #expect(try ds.extensions.basicConstraints == nil)
        #expect(try ds.extensions.keyUsage == KeyUsage(digitalSignature: true))
        #expect(ds.extensions[oid: .X509ExtensionID.keyUsage]?.critical == true)
        #expect(try ds.extensions.extendedKeyUsage == ExtendedKeyUsage([.mdlDocumentSigner]))
        #expect(ds.extensions[oid: .X509ExtensionID.extendedKeyUsage]?.critical == true)
        #expect(
            try ds.extensions.authorityKeyIdentifier?.keyIdentifier == iaca.extensions.subjectKeyIdentifier?.keyIdentifier
        )
        #expect(try ds.extensions.issuerAlternativeName == iaca.extensions.issuerAlternativeName)
        #expect(try ds.extensions.crlDistributionPoints?.fullNames == [.uniformResourceIdentifier("https://dmv.utopia.example/crl")])
        #expect(ds.notValidAfter.timeIntervalSince(ds.notValidBefore) == 365 * 86_400)
    }

    @Test("P-384 IACA signs with ecdsa-with-SHA384; a P-256 Document Signer under it validates")
    func p384() async throws {
        let pki = try GeneratedPKI(keyAlgorithm: .p384)
        #expect(P384.Signing.PublicKey(pki.iaca.root.certificate.publicKey) != nil)
        #expect(pki.iaca.root.certificate.signatureAlgorithm == .ecdsaWithSHA384)
        #expect(pki.documentSigner.certificate.signatureAlgorithm == .ecdsaWithSHA384)
        #expect(P256.Signing.PublicKey(pki.documentSigner.certificate.publicKey) != nil)
        #expect(try await pki.validateDS([pki.documentSigner.certificate]).failures == [])
        #expect(pki.iaca.root.privateKey.description == "SigningKey(P-384)")
    }

    @Test("the created reader chain validates and carries B.1.7 extensions")
    func readerChain() async throws {
        let pki = try GeneratedPKI()
        let reader = pki.reader.certificate
        #expect(try reader.extensions.extendedKeyUsage == ExtendedKeyUsage([.mdlReaderAuthentication]))
        #expect(try reader.extensions.keyUsage == KeyUsage(digitalSignature: true))
        #expect(try await pki.validateReader([reader]).failures == [])
    }

    @Test("the same seed gives the same keys and serial numbers; another seed does not")
    func reproducible() throws {
        let first = try GeneratedPKI(seed: 42)
        let again = try GeneratedPKI(seed: 42)
        let other = try GeneratedPKI(seed: 43)
        #expect(first.iaca.root.certificate.publicKey == again.iaca.root.certificate.publicKey)
        #expect(first.documentSigner.certificate.publicKey == again.documentSigner.certificate.publicKey)
        #expect(first.documentSigner.certificate.serialNumber == again.documentSigner.certificate.serialNumber)
        #expect(first.iaca.root.certificate.publicKey != other.iaca.root.certificate.publicKey)
        #expect(first.iaca.root.certificate.serialNumber != other.iaca.root.certificate.serialNumber)
    }

    @Test("serial numbers are positive, 16 octets, distinct")
    func serialNumbers() throws {
        let pki = try GeneratedPKI()
        let serials = [
            pki.iaca.root.certificate, pki.documentSigner.certificate, pki.readerRoot.root.certificate,
            pki.reader.certificate,
        ].map(\.serialNumber.bytes)
        for serial in serials {
            #expect(serial.count == 16)
            #expect((serial.first ?? 0x80) & 0x80 == 0)
        }
        #expect(Set(serials.map(Array.init)).count == 4)
    }

    @Test("PEM round trip: certificate → TrustAnchors, PKCS#8 key → SigningKey, resumed IACA issues valid DSs")
    func pemRoundTrip() async throws {
        let pki = try GeneratedPKI()
        let certificatePEM = try pki.iaca.root.certificatePEM()
        #expect(certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let keyPEM = pki.iaca.root.privateKeyPEM
        #expect(keyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))

        let anchors = try TrustAnchors(pemBundle: certificatePEM)
        #expect(anchors.certificates == [pki.iaca.root.certificate])
        let key = try SigningKey(pemRepresentation: keyPEM)
        #expect(key.publicKey == pki.iaca.root.certificate.publicKey)

        let resumed = try IACAIssuer(certificate: anchors.certificates[0], privateKey: key)
        var random = SeededGenerator(seed: 1)
        let ds = try resumed.issueDocumentSigner(
            DocumentSignerRequest(commonName: "Utopia DS 2"),
            now: GeneratedPKI.now.addingTimeInterval(86_400),
            random: &random
        )
        let outcome = await validateDocumentSignerChain(
            [try ds.derEncoded()],
            anchors: anchors,
            at: GeneratedPKI.now.addingTimeInterval(2 * 86_400)
        )
        #expect(outcome.failures == [])
    }

    @Test("issuance refuses requests that would break Annex B")
    func invalidRequests() throws {
        let pki = try GeneratedPKI()
        var random = SeededGenerator(seed: 2)
        #expect(throws: TrustError.self) {
            try IACAIssuer.create(
                IACARootRequest(country: "us", commonName: "x", issuerAlternativeName: .rfc822Name("a@b.example")),
                now: GeneratedPKI.now,
                random: &random
            )
        }
        #expect(throws: TrustError.self) {
            try IACAIssuer.create(
                IACARootRequest(country: "US", commonName: "x", issuerAlternativeName: .dnsName("b.example")),
                now: GeneratedPKI.now,
                random: &random
            )
        }
        #expect(throws: TrustError.self) {
            try pki.iaca.issueDocumentSigner(
                DocumentSignerRequest(commonName: "too long", validityDays: 500),
                now: GeneratedPKI.now,
                random: &random
            )
        }
        // Ending after the IACA (B.1.3: validity within the IACA's).
        #expect(throws: TrustError.self) {
            try pki.iaca.issueDocumentSigner(
                DocumentSignerRequest(commonName: "late"),
                now: pki.iaca.root.certificate.notValidAfter.addingTimeInterval(-10 * 86_400),
                random: &random
            )
        }
        // A key that is not the certificate's.
        #expect(throws: TrustError.self) {
            try IACAIssuer(certificate: pki.iaca.root.certificate, privateKey: pki.documentSigner.privateKey)
        }
    }

    @Test("an existing key can be supplied instead of generating one")
    func suppliedKey() throws {
        var random = SeededGenerator(seed: 9)
        let key = try SigningKey.generate(.p256, using: &random)
        let iaca = try IACAIssuer.create(
            IACARootRequest(country: "UT", commonName: "Keyed IACA", issuerAlternativeName: .rfc822Name("k@utopia.example")),
            now: GeneratedPKI.now,
            random: &random,
            key: key
        )
        #expect(iaca.root.certificate.publicKey == key.publicKey)
    }
}

@Suite("Trust anchors and errors")
struct TrustAnchorsTests {
    @Test("a PEM bundle yields every certificate in order and skips key blocks")
    func pemBundle() throws {
        let pki = try GeneratedPKI()
        let bundle = try CertificatePEM.encode([pki.iaca.root.certificate, pki.readerRoot.root.certificate])
            + pki.iaca.root.privateKeyPEM
        let anchors = try TrustAnchors(pemBundle: bundle)
        #expect(anchors.certificates == [pki.iaca.root.certificate, pki.readerRoot.root.certificate])
    }

    @Test("unreadable PEM and DER are typed errors")
    func badInput() throws {
        #expect(throws: TrustError.invalidPEM(reason: "no CERTIFICATE block")) {
            try TrustAnchors(pemBundle: "nothing here")
        }
        #expect {
            try TrustAnchors(derCertificates: [Data([0x30, 0x03, 0x02, 0x01, 0x01])])
        } throws: { error in
            guard case .malformedTrustAnchor(index: 0, _) = error as? TrustError else { return false }
            return true
        }
    }

    @Test("descriptions cite the clause and carry no key material")
    func descriptions() throws {
        #expect(TrustError.countryMismatch(iaca: "US", ds: "DE").description.contains("ISO/IEC 18013-5:2021 B.1.3"))
        #expect(
            TrustError.basicConstraintsViolation(certificate: 1, profile: .iacaRoot, problem: .pathLengthMissing(expected: 0))
                .description.hasPrefix("ISO/IEC 18013-5:2021 B.1.2")
        )
        #expect(
            TrustError.missingExtendedKeyUsage(certificate: 0, expected: "1.0.18013.5.1.6 (id-mdl-kp-mdlReaderAuth)")
                .clause == "ISO/IEC 18013-5:2021 B.1.7"
        )
        #expect(TrustError.expired(certificate: 0, notAfter: .annexDInstant).description.contains("RFC 5280"))
        #expect(TrustError.expired(certificate: 0, notAfter: .annexDInstant).description.contains("2021-01-01T00:00:00Z"))
        var random = SeededGenerator(seed: 4)
        let key = try SigningKey.generate(using: &random)
        #expect(String(describing: key) == "SigningKey(P-256)")
        #expect(String(reflecting: key) == "SigningKey(P-256)")
    }
}
