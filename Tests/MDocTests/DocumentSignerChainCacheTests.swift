import Foundation
import Testing
import TesseraCOSE
import TesseraTrust
@testable import MDoc

/// The reader's Document Signer chain cache (issue 29): a chain that validated is reused only for the same bytes,
/// anchors and options, only at instants inside every certificate's validity; failures are never kept.
@Suite struct DocumentSignerChainCacheTests {
    let transcript: SessionTranscript
    let response: DeviceResponse
    let anchors: TrustAnchors
    let readerKey: EphemeralPrivateKey

    init() throws {
        transcript = try SessionTranscript(taggedBytes: AnnexD.bytes("SessionTranscriptBytes"))
        response = try DeviceResponse(bytes: AnnexD.bytes("DeviceResponse"))
        anchors = try TrustAnchors(derCertificates: [AnnexD.bytes("IACARootCertificate")])
        readerKey = .p256(try AnnexD.p256Private("eReaderKey_d"))
    }

    private func verify(_ verifier: MDocVerifier, at instant: Date) async -> [String] {
        await verifier.verify(response, sessionTranscript: transcript, at: instant, readerEphemeralKey: readerKey).allErrors.map(\.code)
    }

    @Test func aValidChainIsValidatedOnceAndTheSameOutcomeIsReused() async throws {
        let cache = DocumentSignerChainCache()
        let verifier = MDocVerifier(trustAnchors: anchors, chainCache: cache)
        #expect(await verify(verifier, at: AnnexD.validationTime) == [])
        #expect(cache.count == 1)
        #expect(await verify(verifier, at: AnnexD.validationTime) == [])
        #expect(cache.count == 1)
        // The same outcome as a verifier without the cache.
        #expect(await verify(MDocVerifier(trustAnchors: anchors, chainCache: nil), at: AnnexD.validationTime) == [])
    }

    @Test func anEntryIsNotUsedOutsideTheValidityOfItsCertificates() async throws {
        let cache = DocumentSignerChainCache()
        let verifier = MDocVerifier(trustAnchors: anchors, chainCache: cache)
        #expect(await verify(verifier, at: AnnexD.validationTime) == [])
        // 2023: the DS certificate has expired; the cached entry must not answer, the chain fails in full.
        let later = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(await verify(verifier, at: later).contains("document_signer_chain_invalid"))
        #expect(cache.count == 1)
    }

    @Test func failuresAreNeverCachedAndOtherAnchorsDoNotHitTheEntry() async throws {
        let cache = DocumentSignerChainCache()
        let later = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(await verify(MDocVerifier(trustAnchors: anchors, chainCache: cache), at: later).contains("document_signer_chain_invalid"))
        #expect(cache.count == 0)
        #expect(await verify(MDocVerifier(trustAnchors: anchors, chainCache: cache), at: AnnexD.validationTime) == [])
        #expect(cache.count == 1)
        // The reader root is not an IACA: the cached IACA validation must not answer for it.
        let readerRoots = try TrustAnchors(derCertificates: [AnnexD.bytes("ReaderRootCertificate")])
        #expect(await verify(MDocVerifier(trustAnchors: readerRoots, chainCache: cache), at: AnnexD.validationTime)
            .contains("document_signer_chain_invalid"))
    }

    @Test func theLeastRecentlyUsedChainIsDroppedAtCapacity() async throws {
        let chain = try #require(response.documents?.first?.issuerSigned.issuerAuth.unprotected.x5chain)
        let cache = DocumentSignerChainCache(capacity: 1)
        let outcome = await cache.validate(chain, anchors: anchors, at: AnnexD.validationTime)
        #expect(outcome.isValid && cache.count == 1)
        // The same chain under another set of anchors (that also holds the IACA) is a second entry: it replaces the first.
        let wider = try TrustAnchors(derCertificates: [AnnexD.bytes("IACARootCertificate"), AnnexD.bytes("ReaderRootCertificate")])
        #expect(await cache.validate(chain, anchors: wider, at: AnnexD.validationTime).isValid)
        #expect(cache.count == 1)
        let unbounded = DocumentSignerChainCache()
        _ = await unbounded.validate(chain, anchors: anchors, at: AnnexD.validationTime)
        _ = await unbounded.validate(chain, anchors: wider, at: AnnexD.validationTime)
        #expect(unbounded.count == 2)
    }
}
