import Foundation
import SwiftASN1
import TesseraTrust
import Testing
import X509

/// One generated Document Signer chain per Annex B rule, each broken in exactly one way and reporting its own error.
@Suite("Document Signer chain rules (B.1.2, B.1.3)")
struct DocumentSignerRuleTests {
    let pki: GeneratedPKI

    init() throws {
        pki = try GeneratedPKI()
    }

    var ds: Certificate { pki.documentSigner.certificate }
    var iaca: Certificate { pki.iaca.root.certificate }

    /// The DS with its extensions edited, re-signed by the IACA.
    func editedDS(_ edit: (inout [Certificate.Extension]) throws -> Void) throws -> Certificate {
        try ds.resigned(by: pki.iacaKey, editing: edit)
    }

    /// The IACA with its extensions edited, self-signed again (same subject and key, so the DS still chains).
    func editedIACA(_ edit: (inout [Certificate.Extension]) throws -> Void) throws -> Certificate {
        try iaca.resigned(by: pki.iacaKey, editing: edit)
    }

    @Test("the generated chain is valid (baseline for every case below)")
    func baseline() async throws {
        let outcome = try await pki.validateDS([ds])
        #expect(outcome.failures == [])
    }

    @Test("wrong extKeyUsage (serverAuth) → extendedKeyUsageMismatch")
    func wrongExtendedKeyUsage() async throws {
        let leaf = try editedDS { $0.replace(try Certificate.Extension(ExtendedKeyUsage([.serverAuth]), critical: true)) }
        let outcome = try await pki.validateDS([leaf])
        #expect(
            outcome.failures == [
                .extendedKeyUsageMismatch(
                    certificate: 0,
                    expected: "1.0.18013.5.1.2 (id-mdl-kp-mdlDS)",
                    found: ["1.3.6.1.5.5.7.3.1"]
                )
            ]
        )
    }

    @Test("extKeyUsage with mdlDS plus another purpose is not exactly mdlDS")
    func extraExtendedKeyUsage() async throws {
        let leaf = try editedDS {
            $0.replace(try Certificate.Extension(ExtendedKeyUsage([.mdlDocumentSigner, .clientAuth]), critical: true))
        }
        let outcome = try await pki.validateDS([leaf])
        #expect(
            outcome.failures == [
                .extendedKeyUsageMismatch(
                    certificate: 0,
                    expected: "1.0.18013.5.1.2 (id-mdl-kp-mdlDS)",
                    found: ["1.0.18013.5.1.2", "1.3.6.1.5.5.7.3.2"]
                )
            ]
        )
    }

    @Test("missing extKeyUsage → missingExtendedKeyUsage")
    func missingExtendedKeyUsage() async throws {
        let leaf = try editedDS { $0.remove(.X509ExtensionID.extendedKeyUsage) }
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.missingExtendedKeyUsage(certificate: 0, expected: "1.0.18013.5.1.2 (id-mdl-kp-mdlDS)")])
    }

    @Test("non-critical extKeyUsage → extensionCriticality")
    func nonCriticalExtendedKeyUsage() async throws {
        let leaf = try editedDS {
            $0.replace(try Certificate.Extension(ExtendedKeyUsage([.mdlDocumentSigner]), critical: false))
        }
        let outcome = try await pki.validateDS([leaf])
        #expect(
            outcome.failures == [
                .extensionCriticality(certificate: 0, profile: .documentSigner, extension: "extKeyUsage", mustBeCritical: true)
            ]
        )
    }

    @Test("keyUsage without digitalSignature → keyUsageViolation")
    func keyUsageWithoutDigitalSignature() async throws {
        let leaf = try editedDS { $0.replace(try Certificate.Extension(KeyUsage(keyEncipherment: true), critical: true)) }
        let outcome = try await pki.validateDS([leaf])
        #expect(
            outcome.failures == [
                .keyUsageViolation(
                    certificate: 0,
                    profile: .documentSigner,
                    expected: "{digitalSignature}",
                    found: "{keyEncipherment}"
                )
            ]
        )
    }

    @Test("missing keyUsage → keyUsageViolation with nothing found")
    func missingKeyUsage() async throws {
        let leaf = try editedDS { $0.remove(.X509ExtensionID.keyUsage) }
        let outcome = try await pki.validateDS([leaf])
        #expect(
            outcome.failures == [
                .keyUsageViolation(certificate: 0, profile: .documentSigner, expected: "{digitalSignature}", found: nil)
            ]
        )
    }

    @Test("Document Signer marked CA → basicConstraintsViolation(.markedCA)")
    func documentSignerMarkedCA() async throws {
        let leaf = try editedDS {
            $0.replace(try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true))
        }
        let outcome = try await pki.validateDS([leaf])
        #expect(
            outcome.failures == [.basicConstraintsViolation(certificate: 0, profile: .documentSigner, problem: .markedCA)]
        )
    }

    @Test("Document Signer country differs from the IACA's → countryMismatch")
    func countryMismatch() async throws {
        let leaf = try ds.resigned(by: pki.iacaKey, subject: try name(country: "DE", commonName: "Utopia DS 1"))
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.countryMismatch(iaca: "UT", ds: "DE")])
    }

    @Test(
        "RFC 5280 §4.1.2.2: a serial number of at most 20 octets, counting the 0x00 before a top bit set; zero refused",
        arguments: [
            ([0x80] + [UInt8](repeating: 0x11, count: 18), true),  // 19-octet magnitude, 20 octets encoded
            ([0x7F] + [UInt8](repeating: 0x11, count: 19), true),  // 20 octets
            ([0x80] + [UInt8](repeating: 0x11, count: 19), false),  // 21 octets encoded
            ([0x01] + [UInt8](repeating: 0x11, count: 20), false),  // 21 octets
            ([0x00], false),  // zero
        ])
    func serialNumberLength(_ magnitude: [UInt8], _ valid: Bool) async throws {
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(bytes: magnitude), publicKey: ds.publicKey,
            notValidBefore: ds.notValidBefore, notValidAfter: ds.notValidAfter, issuer: ds.issuer, subject: ds.subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: ds.extensions, issuerPrivateKey: pki.iacaKey.certificatePrivateKey)
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == (valid ? [] : [.invalidSerialNumber(certificate: 0)]))
    }

    @Test("Document Signer without commonName → missingCommonName")
    func documentSignerWithoutCommonName() async throws {
        let leaf = try ds.resigned(by: pki.iacaKey, subject: try DistinguishedName { CountryName("UT") })
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.missingCommonName(certificate: 0, profile: .documentSigner)])
    }

    @Test("Document Signer without countryName → missingCountry")
    func documentSignerWithoutCountry() async throws {
        let leaf = try ds.resigned(by: pki.iacaKey, subject: try name(commonName: "Utopia DS 1"))
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.missingCountry(certificate: 0, profile: .documentSigner)])
    }

    @Test("IACA with stateOrProvinceName, Document Signer with another → stateOrProvinceMismatch")
    func stateOrProvinceMismatch() async throws {
        let pki = try GeneratedPKI(stateOrProvince: "North")
        #expect(try await pki.validateDS([pki.documentSigner.certificate]).failures == [])
        let leaf = try pki.documentSigner.certificate.resigned(
            by: pki.iacaKey,
            subject: try name(country: "UT", state: "South", commonName: "Utopia DS 1")
        )
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.stateOrProvinceMismatch(iaca: "North", ds: "South")])
    }

    @Test("IACA without pathLenConstraint → basicConstraintsViolation(.pathLengthMissing)")
    func iacaPathLengthMissing() async throws {
        let root = try editedIACA {
            $0.replace(try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true))
        }
        let outcome = try await pki.validateDS([ds], anchors: [root])
        #expect(
            outcome.failures == [
                .basicConstraintsViolation(certificate: 1, profile: .iacaRoot, problem: .pathLengthMissing(expected: 0))
            ]
        )
    }

    @Test("IACA with pathLenConstraint 1 → basicConstraintsViolation(.pathLengthMismatch)")
    func iacaPathLengthWrong() async throws {
        let root = try editedIACA {
            $0.replace(try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: 1), critical: true))
        }
        let outcome = try await pki.validateDS([ds], anchors: [root])
        #expect(
            outcome.failures == [
                .basicConstraintsViolation(
                    certificate: 1,
                    profile: .iacaRoot,
                    problem: .pathLengthMismatch(expected: 0, found: 1)
                )
            ]
        )
    }

    @Test("IACA basicConstraints not critical → basicConstraintsViolation(.notCritical)")
    func iacaBasicConstraintsNotCritical() async throws {
        let root = try editedIACA {
            $0.replace(try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: 0), critical: false))
        }
        let outcome = try await pki.validateDS([ds], anchors: [root])
        #expect(outcome.failures == [.basicConstraintsViolation(certificate: 1, profile: .iacaRoot, problem: .notCritical)])
    }

    @Test("IACA keyUsage without cRLSign → keyUsageViolation")
    func iacaKeyUsage() async throws {
        let root = try editedIACA { $0.replace(try Certificate.Extension(KeyUsage(keyCertSign: true), critical: true)) }
        let outcome = try await pki.validateDS([ds], anchors: [root])
        #expect(
            outcome.failures == [
                .keyUsageViolation(
                    certificate: 1,
                    profile: .iacaRoot,
                    expected: "{keyCertSign, cRLSign}",
                    found: "{keyCertSign}"
                )
            ]
        )
    }

    @Test("IACA without issuerAltName → missingIssuerAlternativeName")
    func iacaWithoutIssuerAltName() async throws {
        let root = try editedIACA { $0.remove(OID.issuerAltName) }
        let outcome = try await pki.validateDS([ds], anchors: [root])
        #expect(outcome.failures == [.missingIssuerAlternativeName(certificate: 1, profile: .iacaRoot)])
    }

    @Test("IACA issuerAltName with a DNS name only → invalidIssuerAlternativeName")
    func iacaIssuerAltNameWithoutEmailOrURI() async throws {
        let root = try editedIACA {
            $0.replace(try IssuerAlternativeName([.dnsName("dmv.utopia.example")]).makeCertificateExtension())
        }
        let outcome = try await pki.validateDS([ds], anchors: [root])
        #expect(outcome.failures == [.invalidIssuerAlternativeName(certificate: 1, profile: .iacaRoot)])
    }

    @Test("IACA without subjectKeyIdentifier → missing SKI on the IACA and AKI mismatch on the Document Signer")
    func iacaWithoutSubjectKeyIdentifier() async throws {
        let root = try editedIACA { $0.remove(.X509ExtensionID.subjectKeyIdentifier) }
        let outcome = try await pki.validateDS([ds], anchors: [root])
        #expect(
            outcome.failures == [
                .authorityKeyIdentifierMismatch(certificate: 0, profile: .documentSigner),
                .missingSubjectKeyIdentifier(certificate: 1, profile: .iacaRoot),
            ]
        )
    }

    @Test("IACA subject without countryName → missingCountry on the IACA")
    func iacaWithoutCountry() async throws {
        let subject = try name(commonName: "Utopia IACA")
        let root = try iaca.resigned(by: pki.iacaKey, issuer: subject, subject: subject)
        let leaf = try ds.resigned(by: pki.iacaKey, issuer: subject)
        let outcome = try await pki.validateDS([leaf], anchors: [root])
        #expect(outcome.failures == [.missingCountry(certificate: 1, profile: .iacaRoot)])
    }

    @Test("IACA country in lower case → invalidCountryCode (and the Document Signer, matching it, is fine)")
    func iacaLowerCaseCountry() async throws {
        let subject = try name(country: "ut", commonName: "Utopia IACA")
        let root = try iaca.resigned(by: pki.iacaKey, issuer: subject, subject: subject)
        let leaf = try ds.resigned(
            by: pki.iacaKey,
            issuer: subject,
            subject: try name(country: "ut", commonName: "Utopia DS 1")
        )
        let outcome = try await pki.validateDS([leaf], anchors: [root])
        #expect(
            outcome.failures == [
                .invalidCountryCode(certificate: 0, value: "ut"),
                .invalidCountryCode(certificate: 1, value: "ut"),
            ]
        )
    }

    @Test("IACA anchor that is not self-issued → notSelfSigned")
    func iacaNotSelfSigned() async throws {
        let otherIssuer = try name(country: "UT", commonName: "Some other CA")
        let root = try iaca.resigned(by: pki.iacaKey, issuer: otherIssuer)
        let outcome = try await pki.validateDS([ds], anchors: [root])
        #expect(outcome.failures == [.notSelfSigned(certificate: 1)])
    }

    @Test("Document Signer validity extending past the IACA's → validityOutsideIssuer")
    func validityOutsideIACA() async throws {
        let leaf = try ds.resigned(by: pki.iacaKey, notAfter: iaca.notValidAfter.addingTimeInterval(86_400))
        // Shorten the IACA instead of stretching the DS past 457 days: re-issue the IACA ending before the DS.
        let root = try iaca.resigned(by: pki.iacaKey, notAfter: ds.notValidAfter.addingTimeInterval(-86_400))
        let outcome = try await pki.validateDS([ds], anchors: [root])
        #expect(outcome.failures == [.validityOutsideIssuer(certificate: 0)])
        let stretched = try await pki.validateDS([leaf])
        #expect(stretched.failures.contains(.validityOutsideIssuer(certificate: 0)))
    }

    @Test("Document Signer valid 500 days → validityPeriodTooLong (457 days at most); option can lift it")
    func documentSignerValidityTooLong() async throws {
        let leaf = try ds.resigned(by: pki.iacaKey, notAfter: ds.notValidBefore.addingTimeInterval(500 * 86_400))
        let outcome = try await pki.validateDS([leaf])
        #expect(
            outcome.failures == [
                .validityPeriodTooLong(certificate: 0, profile: .documentSigner, days: 500, maximumDays: 457)
            ]
        )
        let lifted = try await pki.validateDS([leaf], options: AnnexBOptions(enforceMaximumValidityPeriods: false))
        #expect(lifted.failures == [])
    }

    @Test("Document Signer authorityKeyIdentifier not the IACA's subjectKeyIdentifier → authorityKeyIdentifierMismatch")
    func authorityKeyIdentifierMismatch() async throws {
        let leaf = try editedDS {
            $0.replace(try Certificate.Extension(AuthorityKeyIdentifier(keyIdentifier: [1, 2, 3, 4]), critical: false))
        }
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.authorityKeyIdentifierMismatch(certificate: 0, profile: .documentSigner)])
    }

    @Test("Document Signer without authorityKeyIdentifier → missingAuthorityKeyIdentifier")
    func missingAuthorityKeyIdentifier() async throws {
        let leaf = try editedDS { $0.remove(.X509ExtensionID.authorityKeyIdentifier) }
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.missingAuthorityKeyIdentifier(certificate: 0, profile: .documentSigner)])
    }

    @Test("Document Signer without issuerAltName → missingIssuerAlternativeName")
    func documentSignerWithoutIssuerAltName() async throws {
        let leaf = try editedDS { $0.remove(OID.issuerAltName) }
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.missingIssuerAlternativeName(certificate: 0, profile: .documentSigner)])
    }

    @Test("a forbidden extension (freshestCRL, B.1.1) → prohibitedExtension")
    func prohibitedExtension() async throws {
        let leaf = try editedDS {
            $0.append(Certificate.Extension(oid: OID.freshestCRL, critical: false, value: [0x30, 0x00]))
        }
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.prohibitedExtension(certificate: 0, extension: "freshestCRL")])
    }

    @Test("an unknown critical extension → unhandledCriticalExtension")
    func unhandledCriticalExtension() async throws {
        let leaf = try editedDS {
            $0.append(Certificate.Extension(oid: [1, 2, 3, 4, 5], critical: true, value: [0x05, 0x00]))
        }
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.unhandledCriticalExtension(certificate: 0, oid: "1.2.3.4.5")])
    }

    @Test("tampered Document Signer (one byte of the commonName changed) → signatureInvalid")
    func tamperedSignature() async throws {
        var der = Array(try ds.der)
        let needle = Array("Utopia DS 1".utf8)
        let start = try #require(
            (0...(der.count - needle.count)).first { Array(der[$0..<($0 + needle.count)]) == needle }
        )
        der[start + needle.count - 1] = UInt8(ascii: "2")
        let outcome = await validateDocumentSignerChain(
            [Data(der)],
            anchors: pki.iaca.trustAnchors,
            at: GeneratedPKI.now.addingTimeInterval(3600)
        )
        #expect(outcome.failures == [.signatureInvalid(certificate: 0)])
    }

    @Test("Document Signer signed by another key claiming the IACA's name → signatureInvalid")
    func signedByImpostor() async throws {
        var random = SeededGenerator(seed: 7)
        let impostor = try SigningKey.generate(using: &random)
        let leaf = try ds.resigned(by: impostor)
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures == [.signatureInvalid(certificate: 0)])
    }

    @Test("several rules broken at once: every failure is listed, not just the first")
    func everyFailureListed() async throws {
        let leaf = try ds.resigned(by: pki.iacaKey, subject: try name(country: "DE", commonName: "Utopia DS 1")) {
            $0.replace(try Certificate.Extension(ExtendedKeyUsage([.serverAuth]), critical: true))
            $0.replace(try Certificate.Extension(KeyUsage(keyCertSign: true), critical: true))
            $0.replace(try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: 0), critical: true))
        }
        let outcome = try await pki.validateDS([leaf])
        #expect(outcome.failures.count == 4)
        #expect(outcome.failures.contains(.countryMismatch(iaca: "UT", ds: "DE")))
        #expect(outcome.failures.contains(.basicConstraintsViolation(certificate: 0, profile: .documentSigner, problem: .markedCA)))
        #expect(
            outcome.failures.contains {
                if case .keyUsageViolation(certificate: 0, profile: .documentSigner, _, _) = $0 { return true }
                return false
            }
        )
        #expect(
            outcome.failures.contains {
                if case .extendedKeyUsageMismatch(certificate: 0, _, _) = $0 { return true }
                return false
            }
        )
    }

    @Test("strict options need cRLDistributionPoints with a URI; the generated PKI can carry one")
    func strictWithCRL() async throws {
        #expect(
            try await pki.validateDS([ds], options: .strict).failures == [
                .missingCRLDistributionPoints(certificate: 0, profile: .documentSigner),
                .missingCRLDistributionPoints(certificate: 1, profile: .iacaRoot),
            ]
        )
        let withCRL = try GeneratedPKI(crlURI: "https://dmv.utopia.example/iaca.crl")
        #expect(try await withCRL.validateDS([withCRL.documentSigner.certificate], options: .strict).failures == [])
        let points = try #require(try withCRL.documentSigner.certificate.extensions.crlDistributionPoints)
        #expect(points.fullNames == [.uniformResourceIdentifier("https://dmv.utopia.example/iaca.crl")])
    }
}
