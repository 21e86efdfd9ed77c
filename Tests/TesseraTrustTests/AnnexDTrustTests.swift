import Foundation
import TesseraTrust
import Testing
import X509

/// ISO/IEC 18013-5:2021 Annex D certificates (D.5.2 issuer, D.4.1.1 reader), validated at 2021-01-01T00:00:00Z.
@Suite("Annex D chains")
struct AnnexDTrustTests {
    let annexD: AnnexDCertificates

    init() throws {
        annexD = try AnnexDCertificates()
    }

    @Test("Document Signer → IACA root is valid under the default Annex B policy")
    func documentSignerChain() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.iacaRoot])
        let outcome = await validateDocumentSignerChain([annexD.documentSigner], anchors: anchors, at: .annexDInstant)
        #expect(outcome.failures == [])
        #expect(outcome.isValid)
        #expect(outcome.leaf == (try Certificate(derEncoded: Array(annexD.documentSigner))))
        #expect(outcome.anchor == anchors.certificates.first)
        #expect(outcome.path.count == 2)
        // The Verifier's diagnostics are kept only for chains it rejects.
        #expect(outcome.diagnostics.isEmpty)
    }

    @Test("an x5chain that also carries the IACA root itself validates the same way")
    func chainIncludingRoot() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.iacaRoot])
        let outcome = await validateDocumentSignerChain(
            [annexD.documentSigner, annexD.iacaRoot],
            anchors: anchors,
            at: .annexDInstant
        )
        #expect(outcome.failures == [])
        #expect(outcome.path.count == 2)
    }

    @Test("reader certificate → reader root is valid")
    func readerChain() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.readerRoot])
        let outcome = await validateReaderChain([annexD.reader], anchors: anchors, at: .annexDInstant)
        #expect(outcome.failures == [])
        #expect(outcome.isValid)
    }

    @Test("in 2030 every certificate of the chain has expired, and each is reported")
    func expiredIn2030() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.iacaRoot])
        let outcome = await validateDocumentSignerChain(
            [annexD.documentSigner],
            anchors: anchors,
            at: .utc(2030, 1, 1)
        )
        #expect(!outcome.isValid)
        #expect(outcome.failures.contains(.expired(certificate: 0, notAfter: .utc(2021, 10, 1))))
        #expect(outcome.failures.contains(.expired(certificate: 1, notAfter: .utc(2029, 9, 29))))
    }

    @Test("before notBefore the chain is not yet valid")
    func notYetValid() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.iacaRoot])
        let outcome = await validateDocumentSignerChain([annexD.documentSigner], anchors: anchors, at: .utc(2020, 9, 1))
        #expect(outcome.failures.contains(.notYetValid(certificate: 0, notBefore: .utc(2020, 10, 1))))
        #expect(outcome.failures.contains(.notYetValid(certificate: 1, notBefore: .utc(2020, 10, 1))))
    }

    @Test("the Document Signer against the reader root is untrusted")
    func documentSignerAgainstReaderRoot() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.readerRoot])
        let outcome = await validateDocumentSignerChain([annexD.documentSigner], anchors: anchors, at: .annexDInstant)
        #expect(!outcome.isValid)
        #expect(outcome.failures.contains(.untrustedRoot(issuer: "C=US,CN=utopia iaca")))
        #expect(outcome.anchor == nil)
        // The Verifier rejected it too, and what it reported along the way is kept.
        #expect(!outcome.diagnostics.isEmpty)
    }

    @Test("the reader certificate against the IACA root is untrusted")
    func readerAgainstIACA() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.iacaRoot])
        let outcome = await validateReaderChain([annexD.reader], anchors: anchors, at: .annexDInstant)
        #expect(!outcome.isValid)
        #expect(
            outcome.failures.contains {
                if case .untrustedRoot = $0 { return true } else { return false }
            }
        )
    }

    @Test("a Document Signer is not a reader certificate: the reader profile rejects its extKeyUsage")
    func documentSignerIsNotAReader() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.iacaRoot])
        let outcome = await validateReaderChain([annexD.documentSigner], anchors: anchors, at: .annexDInstant)
        #expect(
            outcome.failures.contains(
                .extendedKeyUsageMismatch(
                    certificate: 0,
                    expected: "1.0.18013.5.1.6 (id-mdl-kp-mdlReaderAuth)",
                    found: ["1.0.18013.5.1.2"]
                )
            )
        )
    }

    @Test("strict options: Annex D names its CRL by dNSName, not URI, so cRLDistributionPoints is reported")
    func strictCRLDistributionPoints() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.iacaRoot])
        let outcome = await validateDocumentSignerChain(
            [annexD.documentSigner],
            anchors: anchors,
            at: .annexDInstant,
            options: .strict
        )
        #expect(
            outcome.failures == [
                .missingCRLDistributionPoints(certificate: 0, profile: .documentSigner),
                .missingCRLDistributionPoints(certificate: 1, profile: .iacaRoot),
            ]
        )
    }

    @Test("the Annex D cRLDistributionPoints decode to their dNSName")
    func crlDistributionPointsDecode() throws {
        let ds = try Certificate(derEncoded: Array(annexD.documentSigner))
        let points = try #require(try ds.extensions.crlDistributionPoints)
        #expect(points.fullNames == [.dnsName("example.com")])
        let issuerAltName = try #require(try ds.extensions.issuerAlternativeName)
        #expect(issuerAltName.names == [.rfc822Name("example@example.com")])
    }

    @Test("the profiles also work as swift-certificates VerifierPolicy values in a Verifier")
    func asVerifierPolicy() async throws {
        let root = try Certificate(derEncoded: Array(annexD.iacaRoot))
        let leaf = try Certificate(derEncoded: Array(annexD.documentSigner))
        var verifier = Verifier(rootCertificates: CertificateStore([root])) {
            DocumentSignerChainPolicy(validationTime: .annexDInstant)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore())
        guard case .validCertificate(let chain) = result else {
            Issue.record("expected a valid chain, got \(result)")
            return
        }
        #expect(Array(chain) == [leaf, root])

        var late = Verifier(rootCertificates: CertificateStore([root])) {
            DocumentSignerChainPolicy(validationTime: .utc(2030, 1, 1))
        }
        guard case .couldNotValidate = await late.validate(leaf: leaf, intermediates: CertificateStore()) else {
            Issue.record("expected the 2030 chain to be rejected")
            return
        }
    }

    @Test("an empty x5chain and undecodable bytes are reported, not trapped")
    func malformedInput() async throws {
        let anchors = try TrustAnchors(derCertificates: [annexD.iacaRoot])
        let empty = await validateDocumentSignerChain([Data](), anchors: anchors, at: .annexDInstant)
        #expect(empty.failures == [.emptyChain])

        var truncated = annexD.documentSigner
        truncated.removeLast(10)
        let outcome = await validateDocumentSignerChain([truncated], anchors: anchors, at: .annexDInstant)
        #expect(outcome.failures.count == 1)
        guard case .malformedCertificate(certificate: 0, _) = outcome.failures.first else {
            Issue.record("expected malformedCertificate, got \(outcome.failures)")
            return
        }
    }

    @Test("no trust anchors at all: untrusted")
    func noAnchors() async throws {
        let outcome = await validateDocumentSignerChain(
            [annexD.documentSigner],
            anchors: TrustAnchors([]),
            at: .annexDInstant
        )
        #expect(!outcome.isValid)
        #expect(outcome.failures.contains(.untrustedRoot(issuer: "C=US,CN=utopia iaca")))
    }
}
