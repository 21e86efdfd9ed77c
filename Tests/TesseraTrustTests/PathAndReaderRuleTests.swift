import Crypto
import Foundation
import SwiftASN1
import TesseraTrust
import Testing
import X509
import TesseraTrustTesting

/// Every link of the path is checked: a chain with a good leaf but a broken intermediate, or carrying an extra
/// certificate, fails (EUDI Android once accepted a chain when any one certificate passed).
@Suite("Certification path links")
struct PathLinkTests {
    let pki: GeneratedPKI
    let intermediateKey: SigningKey

    init() throws {
        pki = try GeneratedPKI()
        var random = SeededGenerator(seed: 99)
        intermediateKey = try SigningKey.generate(using: &random)
    }

    /// An intermediate CA under the IACA (Annex B has none: the IACA's pathLenConstraint is 0).
    func intermediate(signer: SigningKey? = nil, notAfter: Date? = nil) throws -> Certificate {
        let iaca = pki.iaca.root.certificate
        let iacaSKI = try #require(try iaca.extensions.subjectKeyIdentifier)
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(bytes: [0x41, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]),
            publicKey: intermediateKey.publicKey,
            notValidBefore: GeneratedPKI.now,
            notValidAfter: notAfter ?? GeneratedPKI.now.addingTimeInterval(400 * 86_400),
            issuer: iaca.subject,
            subject: try name(country: "UT", commonName: "Utopia intermediate"),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectKeyIdentifier(hash: intermediateKey.publicKey)
                AuthorityKeyIdentifier(keyIdentifier: iacaSKI.keyIdentifier)
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            },
            issuerPrivateKey: (signer ?? pki.iacaKey).certificatePrivateKey
        )
    }

    /// The Document Signer re-issued under `intermediate`.
    func leaf(under intermediate: Certificate) throws -> Certificate {
        try pki.documentSigner.certificate.resigned(by: intermediateKey, issuer: intermediate.subject) {
            $0.replace(
                try Certificate.Extension(
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: intermediateKey.publicKey).keyIdentifier),
                    critical: false
                )
            )
        }
    }

    @Test("a well-formed intermediate still breaks the IACA's pathLenConstraint 0")
    func intermediateExceedsPathLength() async throws {
        let middle = try intermediate()
        let outcome = try await pki.validateDS([leaf(under: middle), middle])
        #expect(outcome.failures == [.pathLengthExceeded(certificate: 2, maximum: 0, found: 1)])
        #expect(outcome.path.count == 3)
    }

    @Test("good leaf, intermediate with a broken signature → signatureInvalid on the intermediate")
    func brokenIntermediateSignature() async throws {
        var random = SeededGenerator(seed: 3)
        let forger = try SigningKey.generate(using: &random)
        let middle = try intermediate(signer: forger)
        let outcome = try await pki.validateDS([leaf(under: middle), middle])
        #expect(!outcome.isValid)
        #expect(outcome.failures.contains(.signatureInvalid(certificate: 1)))
        #expect(!outcome.failures.contains(.signatureInvalid(certificate: 0)))
    }

    @Test("good leaf, expired intermediate → expired on the intermediate")
    func expiredIntermediate() async throws {
        let middle = try intermediate(notAfter: GeneratedPKI.now.addingTimeInterval(60))
        let outcome = try await pki.validateDS([leaf(under: middle), middle])
        #expect(outcome.failures.contains(.expired(certificate: 1, notAfter: GeneratedPKI.now.addingTimeInterval(60))))
    }

    @Test("an intermediate that is not a CA → basicConstraintsViolation on the path")
    func intermediateNotCA() async throws {
        let middle = try intermediate().resigned(by: pki.iacaKey) {
            $0.replace(try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true))
        }
        let outcome = try await pki.validateDS([leaf(under: middle), middle])
        #expect(
            outcome.failures.contains(.basicConstraintsViolation(certificate: 1, profile: .certificationPath, problem: .notCA))
        )
    }

    @Test("a valid Document Signer followed by an unrelated certificate is rejected")
    func unrelatedExtraCertificate() async throws {
        let outcome = try await pki.validateDS([pki.documentSigner.certificate, pki.reader.certificate])
        #expect(!outcome.isValid)
        #expect(outcome.failures.contains(.issuerNameMismatch(certificate: 0)))
        #expect(outcome.failures.contains(.untrustedRoot(issuer: pki.reader.certificate.issuer.description)))
    }

    @Test("a chain ending at the wrong trusted IACA fails even though another anchor issued the leaf")
    func endsAtWrongAnchor() async throws {
        var random = SeededGenerator(seed: 11)
        let other = try IACAIssuer.create(
            IACARootRequest(
                country: "UT",
                commonName: "Other IACA",
                issuerAlternativeName: .rfc822Name("iaca@other.example")
            ),
            now: GeneratedPKI.now,
            random: &random
        )
        let anchors = [pki.iaca.root.certificate, other.root.certificate]
        let sentAlone = try await pki.validateDS([pki.documentSigner.certificate], anchors: anchors)
        #expect(sentAlone.failures == [])
        let outcome = try await pki.validateDS([pki.documentSigner.certificate, other.root.certificate], anchors: anchors)
        #expect(outcome.failures.contains(.issuerNameMismatch(certificate: 0)))
        #expect(outcome.failures.contains(.signatureInvalid(certificate: 0)))
    }

    @Test("an IACA with a broken self-signature → signatureInvalid on the anchor")
    func brokenRootSelfSignature() async throws {
        var random = SeededGenerator(seed: 5)
        let forger = try SigningKey.generate(using: &random)
        let root = try pki.iaca.root.certificate.resigned(by: forger)
        let outcome = try await pki.validateDS([pki.documentSigner.certificate], anchors: [root])
        #expect(outcome.failures == [.signatureInvalid(certificate: 1)])
    }
}

@Suite("Reader chain rules (B.1.7)")
struct ReaderRuleTests {
    let pki: GeneratedPKI

    init() throws {
        pki = try GeneratedPKI()
    }

    var reader: Certificate { pki.reader.certificate }
    var root: Certificate { pki.readerRoot.root.certificate }

    func editedReader(_ edit: (inout [Certificate.Extension]) throws -> Void) throws -> Certificate {
        try reader.resigned(by: pki.readerRootKey, editing: edit)
    }

    @Test("the generated reader chain is valid")
    func baseline() async throws {
        #expect(try await pki.validateReader([reader]).failures == [])
    }

    @Test("reader certificate with the Document Signer purpose → extendedKeyUsageMismatch")
    func wrongPurpose() async throws {
        let leaf = try editedReader {
            $0.replace(try Certificate.Extension(ExtendedKeyUsage([.mdlDocumentSigner]), critical: true))
        }
        let outcome = try await pki.validateReader([leaf])
        #expect(
            outcome.failures == [
                .extendedKeyUsageMismatch(
                    certificate: 0,
                    expected: "1.0.18013.5.1.6 (id-mdl-kp-mdlReaderAuth)",
                    found: ["1.0.18013.5.1.2"]
                )
            ]
        )
    }

    @Test("reader certificate without extKeyUsage → missingExtendedKeyUsage")
    func missingPurpose() async throws {
        let leaf = try editedReader { $0.remove(.X509ExtensionID.extendedKeyUsage) }
        let outcome = try await pki.validateReader([leaf])
        #expect(
            outcome.failures == [
                .missingExtendedKeyUsage(certificate: 0, expected: "1.0.18013.5.1.6 (id-mdl-kp-mdlReaderAuth)")
            ]
        )
    }

    @Test("reader keyUsage without digitalSignature → keyUsageViolation")
    func readerKeyUsage() async throws {
        let leaf = try editedReader { $0.replace(try Certificate.Extension(KeyUsage(keyAgreement: true), critical: true)) }
        let outcome = try await pki.validateReader([leaf])
        #expect(
            outcome.failures == [
                .keyUsageViolation(
                    certificate: 0,
                    profile: .readerAuthentication,
                    expected: "{digitalSignature}",
                    found: "{keyAgreement}"
                )
            ]
        )
    }

    @Test("reader certificate marked CA → basicConstraintsViolation(.markedCA)")
    func readerMarkedCA() async throws {
        let leaf = try editedReader {
            $0.replace(try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true))
        }
        let outcome = try await pki.validateReader([leaf])
        #expect(
            outcome.failures == [
                .basicConstraintsViolation(certificate: 0, profile: .readerAuthentication, problem: .markedCA)
            ]
        )
    }

    @Test("reader root that is not a CA → basicConstraintsViolation(.notCA) on the reader root")
    func readerRootNotCA() async throws {
        let badRoot = try root.resigned(by: pki.readerRootKey) {
            $0.replace(try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true))
        }
        let outcome = try await pki.validateReader([reader], anchors: [badRoot])
        #expect(outcome.failures == [.basicConstraintsViolation(certificate: 1, profile: .readerRoot, problem: .notCA)])
    }

    @Test("reader root without keyCertSign → keyUsageViolation on the reader root")
    func readerRootKeyUsage() async throws {
        let badRoot = try root.resigned(by: pki.readerRootKey) {
            $0.replace(try Certificate.Extension(KeyUsage(cRLSign: true), critical: true))
        }
        let outcome = try await pki.validateReader([reader], anchors: [badRoot])
        #expect(
            outcome.failures == [
                .keyUsageViolation(
                    certificate: 1,
                    profile: .readerRoot,
                    expected: "to include {keyCertSign}",
                    found: "{cRLSign}"
                )
            ]
        )
    }

    @Test("root with issuerAltName, reader certificate without → missingIssuerAlternativeName")
    func issuerAltNameInherited() async throws {
        let rootWithName = try root.resigned(by: pki.readerRootKey) {
            $0.append(try IssuerAlternativeName([.rfc822Name("ca@reader.example")]).makeCertificateExtension())
        }
        let outcome = try await pki.validateReader([reader], anchors: [rootWithName])
        #expect(outcome.failures == [.missingIssuerAlternativeName(certificate: 0, profile: .readerAuthentication)])
    }

    @Test("reader certificate valid 1200 days → validityPeriodTooLong (1187 at most)")
    func readerValidityTooLong() async throws {
        let leaf = try reader.resigned(by: pki.readerRootKey, notAfter: reader.notValidBefore.addingTimeInterval(1200 * 86_400))
        let outcome = try await pki.validateReader([leaf])
        #expect(
            outcome.failures == [
                .validityPeriodTooLong(certificate: 0, profile: .readerAuthentication, days: 1200, maximumDays: 1187)
            ]
        )
    }

    @Test("a reader certificate is not a Document Signer, and the reader root is not an IACA")
    func readerChainIsNotADocumentSignerChain() async throws {
        let outcome = try await pki.validateDS([reader], anchors: [root])
        #expect(!outcome.isValid)
        #expect(
            outcome.failures.contains(
                .extendedKeyUsageMismatch(
                    certificate: 0,
                    expected: "1.0.18013.5.1.2 (id-mdl-kp-mdlDS)",
                    found: ["1.0.18013.5.1.6"]
                )
            )
        )
        #expect(outcome.failures.contains(.missingIssuerAlternativeName(certificate: 1, profile: .iacaRoot)))
    }
}
