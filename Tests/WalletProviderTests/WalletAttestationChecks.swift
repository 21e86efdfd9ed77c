import Crypto
import Foundation
import MDoc
import SDJWT
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraJOSE
import TesseraTrust
import Testing
import X509

/// Independent checks of each 1.0 Wallet Attestation format, each with its own library's verifier and the
/// relying party's only trust input: the provider's signing root.
enum WalletAttestationChecks {
    /// The three formats of a `{"wallet_attestations": […]}` answer, by format; fails unless each appears once.
    static func formats(_ answer: ProviderFixture.Answer) throws -> [String: String] {
        let list = try #require(answer.json?["wallet_attestations"]?.arrayValue, "\(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        var byFormat: [String: String] = [:]
        for entry in list {
            let format = try #require(entry["format"]?.stringValue)
            #expect(byFormat[format] == nil, "\(format) twice")
            byFormat[format] = try #require(entry["wallet_attestation"]?.stringValue)
        }
        #expect(list.map { $0["format"]?.stringValue } == ["jwt", "dc+sd-jwt", "mso_mdoc"])
        return byFormat
    }

    /// `jwt`: `x5c` to the root, signature by its leaf, `typ`; returns the header and claims.
    static func jwt(_ text: String, root: Certificate, at instant: Date) async throws -> (header: JSONObject, claims: JSONObject) {
        let jws = try CompactJWS(parsing: text)
        #expect(jws.type == "oauth-client-attestation+jwt")
        _ = try await jws.verifyX5C(anchors: [root], at: instant)
        return (jws.header, try jws.payloadJSON())
    }

    /// `dc+sd-jwt`: RFC 9901 / SD-JWT VC verification with the issuer key from `x5c`, no Key Binding (the
    /// attestation as issued); returns the outcome (its claims with the Disclosures applied).
    static func sdJWT(_ text: String, root: Certificate, at instant: Date) async -> SDJWTVerificationOutcome {
        let policy = SDJWTVerificationPolicy.sdJWTVC(
            issuerKeySource: .x5c(anchors: [root]), expectedAudience: nil, expectedNonce: nil, requireKeyBinding: false)
        return await SDJWTVerifier(policy: policy, clock: FixedClock(instant)).verify(text)
    }

    /// What the `mso_mdoc` format proves, as an mdoc reader checks IssuerSigned (ISO/IEC 18013-5 §9.3.1): the
    /// x5chain to the root, issuerAuth by its leaf, every element's digest, and the MSO.
    struct MDocFacts {
        let issuerSigned: IssuerSigned
        let mso: MobileSecurityObject
        let elements: [String: [String: CBOR]]
        var failures: [String]
    }

    static func mdoc(_ text: String, root: Certificate, at instant: Date) async throws -> MDocFacts {
        let bytes = try Base64URL.decode(text)
        let issuerSigned = try IssuerSigned(bytes: bytes)
        var failures: [String] = []
        let chain = try #require(issuerSigned.issuerAuth.unprotected.x5chain)
        let outcome = await validateX5CChain(chain, anchors: TrustAnchors([root]), at: instant)
        if !outcome.isValid { failures.append("x5chain: \(outcome.failures)") }
        let leaf = try Certificate(derEncoded: Array(try #require(chain.first)))
        let leafKey = try #require(P256.Signing.PublicKey(leaf.publicKey))
        do {
            try issuerSigned.issuerAuth.verify(with: .p256(leafKey))
        } catch {
            failures.append("issuerAuth: \(error)")
        }
        let mso = try issuerSigned.mobileSecurityObject().value
        let algorithm = try #require(DigestAlgorithm(rawValue: mso.digestAlgorithm))
        var elements: [String: [String: CBOR]] = [:]
        for (namespace, items) in issuerSigned.nameSpaces ?? [:] {
            for item in items {
                let id = Int(item.value.digestID)
                let digest = algorithm.digest(CBOR.encodeTag24(item.bytes))
                if mso.valueDigests[namespace]?[id] != digest { failures.append("digest of \(item.value.elementIdentifier)") }
                elements[namespace, default: [:]][item.value.elementIdentifier] = item.value.elementValue
            }
        }
        if instant < mso.validityInfo.validFrom.date || instant > mso.validityInfo.validUntil.date { failures.append("validity") }
        return MDocFacts(issuerSigned: issuerSigned, mso: mso, elements: elements, failures: failures)
    }
}

