import Foundation
import TesseraTrust
import Testing
import X509

/// The anchors' self-signatures are verified once per `TrustAnchors` and links once per validation: what is
/// remembered must be the verdict, bad or good, for every later validation and every copy of the anchors.
@Suite("Signatures verified once")
struct VerifiedOnceTests {
    let pki: GeneratedPKI

    init() throws {
        pki = try GeneratedPKI()
    }

    func validate(_ anchors: TrustAnchors) async throws -> ChainValidationOutcome {
        await validateDocumentSignerChain(
            [try pki.documentSigner.certificate.der], anchors: anchors, at: GeneratedPKI.now.addingTimeInterval(3600))
    }

    @Test("a broken IACA self-signature is reported by every validation against the same anchors")
    func brokenSelfSignatureStaysBroken() async throws {
        var random = SeededGenerator(seed: 5)
        let forger = try SigningKey.generate(using: &random)
        let anchors = TrustAnchors([try pki.iaca.root.certificate.resigned(by: forger)])
        let copy = anchors
        for outcome in [try await validate(anchors), try await validate(anchors), try await validate(copy)] {
            #expect(outcome.failures == [.signatureInvalid(certificate: 1)])
        }
    }

    @Test("a good IACA stays good, and the same anchors still reject a Document Signer it did not sign")
    func goodAnchorsStillCheckEachLink() async throws {
        let anchors = TrustAnchors([pki.iaca.root.certificate])
        #expect(try await validate(anchors).isValid)
        #expect(try await validate(anchors).isValid)
        var random = SeededGenerator(seed: 6)
        let forger = try SigningKey.generate(using: &random)
        let forged = try pki.documentSigner.certificate.resigned(by: forger)
        let outcome = await validateDocumentSignerChain(
            [try forged.der], anchors: anchors, at: GeneratedPKI.now.addingTimeInterval(3600))
        #expect(outcome.failures.contains(.signatureInvalid(certificate: 0)))
        #expect(try await validate(anchors).isValid)
    }

    @Test("an anchor's profile verdict is kept per profile options, and a failing anchor is reported at its position in each path")
    func anchorProfileVerdicts() async throws {
        let anchors = TrustAnchors([pki.iaca.root.certificate])
        let chain = [try pki.documentSigner.certificate.der]
        let instant = GeneratedPKI.now.addingTimeInterval(3600)
        #expect(await validateDocumentSignerChain(chain, anchors: anchors, at: instant).isValid)
        // The root has no cRLDistributionPoints: the verdict remembered for the default options must not answer
        // for the strict ones.
        let strict = await validateDocumentSignerChain(chain, anchors: anchors, at: instant, options: .strict)
        #expect(strict.failures.contains(.missingCRLDistributionPoints(certificate: 1, profile: .iacaRoot)))
        #expect(await validateDocumentSignerChain(chain, anchors: anchors, at: instant).isValid)

        let edited = try pki.iaca.root.certificate.resigned(by: pki.iacaKey) { $0.remove(OID.issuerAltName) }
        let failing = TrustAnchors([edited])
        let signedByEdited = try pki.documentSigner.certificate.resigned(by: pki.iacaKey)
        for _ in 0..<2 {
            let belowRoot = await validateDocumentSignerChain([try signedByEdited.der], anchors: failing, at: instant)
            #expect(belowRoot.failures == [.missingIssuerAlternativeName(certificate: 1, profile: .iacaRoot)])
            let rootAlone = await validateDocumentSignerChain([try edited.der], anchors: failing, at: instant)
            #expect(rootAlone.failures.contains(.missingIssuerAlternativeName(certificate: 0, profile: .iacaRoot)))
        }
    }
}
