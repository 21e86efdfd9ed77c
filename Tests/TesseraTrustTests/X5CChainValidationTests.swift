import Foundation
import SwiftASN1
import Testing
import X509

@testable import TesseraTrust
import TesseraTrustTesting

/// A root → intermediate → leaf chain from `X5CTestPKI`, valid during 2030.
struct X5CTestChain {
    static let notBefore = Date.utc(2030, 1, 1)
    static let notAfter = Date.utc(2031, 1, 1)
    static let instant = Date.utc(2030, 6, 1)

    let root: IssuedCertificate
    let intermediate: IssuedCertificate
    let leaf: IssuedCertificate

    init(
        seed: UInt64 = 1,
        rootName: String = "x5c Test Root",
        intermediateIsCA: Bool = true,
        leafKeyUsage: KeyUsage? = nil,
        leafExtensions: [Certificate.Extension] = [],
        leafNotAfter: Date = X5CTestChain.notAfter
    ) throws {
        var random = SeededGenerator(seed: seed)
        root = try X5CTestPKI.issueRoot(
            X5CCertificateRequest(commonName: rootName, notBefore: Self.notBefore, notAfter: Self.notAfter), random: &random)
        intermediate = try X5CTestPKI.issue(
            X5CCertificateRequest(
                commonName: "x5c Test Intermediate", isCertificateAuthority: intermediateIsCA,
                keyUsage: intermediateIsCA ? nil : KeyUsage(digitalSignature: true),
                notBefore: Self.notBefore, notAfter: Self.notAfter),
            by: root, random: &random)
        leaf = try X5CTestPKI.issue(
            X5CCertificateRequest(
                commonName: "issuer.example.com", keyUsage: leafKeyUsage, subjectAlternativeNames: [.dnsName("issuer.example.com")],
                notBefore: Self.notBefore, notAfter: leafNotAfter, extraExtensions: leafExtensions),
            by: intermediate, random: &random)
    }

    /// Leaf first, without the root (as x5c is usually sent).
    var chain: [Certificate] { [leaf.certificate, intermediate.certificate] }
    var anchors: TrustAnchors { TrustAnchors([root.certificate]) }
}

@Suite("x5c chain validation (RFC 5280, RFC 7515 §4.1.6)")
struct X5CChainValidationTests {
    @Test("a leaf → intermediate chain anchored at the root is valid; the outcome names leaf, anchor and path")
    func valid() async throws {
        let pki = try X5CTestChain()
        let outcome = await validateX5CChain(pki.chain, anchors: pki.anchors, at: X5CTestChain.instant)
        #expect(outcome.failures == [])
        #expect(outcome.isValid)
        #expect(outcome.leaf == pki.leaf.certificate)
        #expect(outcome.anchor == pki.root.certificate)
        #expect(outcome.path == [pki.leaf.certificate, pki.intermediate.certificate, pki.root.certificate])
    }

    @Test("the chain may carry the root itself, and DER input validates the same")
    func rootIncludedAndDER() async throws {
        let pki = try X5CTestChain()
        let full = pki.chain + [pki.root.certificate]
        #expect(await validateX5CChain(full, anchors: pki.anchors, at: X5CTestChain.instant).isValid)
        let der = try full.map { try CertificatePEM.der($0) }
        #expect(await validateX5CChain(der, anchors: pki.anchors, at: X5CTestChain.instant).isValid)
    }

    @Test("a self-signed certificate that is itself the anchor is valid when it may sign; a CA-only root may not")
    func anchorAsLeaf() async throws {
        var random = SeededGenerator(seed: 5)
        let signer = try X5CTestPKI.issueRoot(
            X5CCertificateRequest(
                commonName: "Self-signed signer", keyUsage: KeyUsage(digitalSignature: true, keyCertSign: true),
                notBefore: X5CTestChain.notBefore, notAfter: X5CTestChain.notAfter),
            random: &random)
        let anchors = TrustAnchors([signer.certificate])
        #expect(await validateX5CChain([signer.certificate], anchors: anchors, at: X5CTestChain.instant).failures == [])
        let pki = try X5CTestChain()
        let caOnly = await validateX5CChain([pki.root.certificate], anchors: pki.anchors, at: X5CTestChain.instant)
        #expect(caOnly.failures == [
            .keyUsageViolation(certificate: 0, profile: .certificationPath, expected: "to include {digitalSignature}", found: "{keyCertSign, cRLSign}")
        ])
    }

    @Test("an empty chain") func empty() async {
        #expect(await validateX5CChain([Data](), anchors: TrustAnchors([]), at: X5CTestChain.instant).failures == [.emptyChain])
    }

    @Test("bytes that are not a certificate") func malformed() async throws {
        let pki = try X5CTestChain()
        let outcome = await validateX5CChain([Data([0x30, 0x03, 0x02, 0x01, 0x01])], anchors: pki.anchors, at: X5CTestChain.instant)
        #expect(outcome.failures.count == 1)
        guard case .malformedCertificate(certificate: 0, _) = outcome.failures.first else {
            Issue.record("expected malformedCertificate, got \(outcome.failures)")
            return
        }
    }

    @Test("another root") func untrusted() async throws {
        let pki = try X5CTestChain()
        let stranger = try X5CTestChain(seed: 2, rootName: "Another Root")
        let outcome = await validateX5CChain(pki.chain, anchors: stranger.anchors, at: X5CTestChain.instant)
        #expect(outcome.failures.contains(.untrustedRoot(issuer: pki.intermediate.certificate.issuer.description)))
        #expect(!outcome.isValid)
    }

    @Test("validated after notAfter and before notBefore") func validity() async throws {
        let pki = try X5CTestChain(leafNotAfter: Date.utc(2030, 3, 1))
        let late = await validateX5CChain(pki.chain, anchors: pki.anchors, at: X5CTestChain.instant)
        #expect(late.failures == [.expired(certificate: 0, notAfter: Date.utc(2030, 3, 1))])
        let early = await validateX5CChain(pki.chain, anchors: pki.anchors, at: Date.utc(2029, 12, 31))
        #expect(early.failures.contains(.notYetValid(certificate: 0, notBefore: X5CTestChain.notBefore)))
        #expect(early.failures.contains(.notYetValid(certificate: 2, notBefore: X5CTestChain.notBefore)))
    }

    @Test("a leaf signed by another key under the same issuer name") func badSignature() async throws {
        let pki = try X5CTestChain()
        let impostor = try X5CTestChain(seed: 3)  // same names, other keys
        let outcome = await validateX5CChain(
            [impostor.leaf.certificate, pki.intermediate.certificate], anchors: pki.anchors, at: X5CTestChain.instant)
        #expect(outcome.failures.contains(.signatureInvalid(certificate: 0)))
    }

    @Test("an intermediate that is not a CA") func intermediateNotCA() async throws {
        let pki = try X5CTestChain(intermediateIsCA: false)
        let outcome = await validateX5CChain(pki.chain, anchors: pki.anchors, at: X5CTestChain.instant)
        #expect(outcome.failures.contains(.basicConstraintsViolation(certificate: 1, profile: .certificationPath, problem: .notCA)))
    }

    @Test("a leaf whose keyUsage excludes digitalSignature") func leafKeyUsage() async throws {
        let pki = try X5CTestChain(leafKeyUsage: KeyUsage(keyEncipherment: true))
        let outcome = await validateX5CChain(pki.chain, anchors: pki.anchors, at: X5CTestChain.instant)
        #expect(outcome.failures == [
            .keyUsageViolation(certificate: 0, profile: .certificationPath, expected: "to include {digitalSignature}", found: "{keyEncipherment}")
        ])
    }

    @Test("a critical extension nobody handles") func unhandledCritical() async throws {
        let custom = Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 99999, 1], critical: true, value: [0x05, 0x00])
        let pki = try X5CTestChain(leafExtensions: [custom])
        let outcome = await validateX5CChain(pki.chain, anchors: pki.anchors, at: X5CTestChain.instant)
        #expect(outcome.failures == [.unhandledCriticalExtension(certificate: 0, oid: "1.3.6.1.4.1.99999.1")])
    }

    @Test("a critical subjectAltName (empty-subject style) is accepted")
    func criticalSubjectAltName() async throws {
        var random = SeededGenerator(seed: 9)
        let root = try X5CTestPKI.issueRoot(
            X5CCertificateRequest(commonName: "Root", notBefore: X5CTestChain.notBefore, notAfter: X5CTestChain.notAfter), random: &random)
        let san = try Certificate.Extension(SubjectAlternativeNames([.dnsName("verifier.example.org")]), critical: true)
        let leaf = try X5CTestPKI.issue(
            X5CCertificateRequest(
                commonName: "verifier", notBefore: X5CTestChain.notBefore, notAfter: X5CTestChain.notAfter, extraExtensions: [san]),
            by: root, random: &random)
        let outcome = await validateX5CChain([leaf.certificate], anchors: TrustAnchors([root.certificate]), at: X5CTestChain.instant)
        #expect(outcome.failures == [])
    }

    @Test("X5CChainPolicy works as a swift-certificates VerifierPolicy on its own")
    func policyInVerifier() async throws {
        let pki = try X5CTestChain()
        var verifier = Verifier(rootCertificates: CertificateStore([pki.root.certificate])) {
            X5CChainPolicy(validationTime: X5CTestChain.instant)
        }
        let result = await verifier.validate(leaf: pki.leaf.certificate, intermediates: CertificateStore([pki.intermediate.certificate]))
        guard case .validCertificate = result else {
            Issue.record("expected a valid chain, got \(result)")
            return
        }
        var late = Verifier(rootCertificates: CertificateStore([pki.root.certificate])) {
            X5CChainPolicy(validationTime: Date.utc(2032, 1, 1))
        }
        let expired = await late.validate(leaf: pki.leaf.certificate, intermediates: CertificateStore([pki.intermediate.certificate]))
        guard case .couldNotValidate = expired else {
            Issue.record("expected an expired chain to fail")
            return
        }
    }
}
