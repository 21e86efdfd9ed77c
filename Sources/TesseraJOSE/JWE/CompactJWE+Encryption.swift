import Crypto
import Foundation
import TesseraCore

extension CompactJWE {
    /// Header members `encrypt` sets itself; `extraHeader` may not contain them.
    static let reservedHeaderMembers: Set<String> = ["alg", "enc", "epk", "apu", "apv", "kid", "zip"]

    /// Encrypts `plaintext` to `recipient`'s public EC key (P-256/384/521) with ECDH-ES direct key agreement and
    /// `enc` (RFC 7516 §5.1, RFC 7518 §4.6).
    ///
    /// The ephemeral key and the 96-bit IV come from `random`. The header is `alg`, `enc`, `kid` (when given),
    /// `epk`, `apu`/`apv` (base64url, when given), then the members of `extraHeader` in order; its serialization
    /// is encoded once and that exact segment is the AAD.
    public static func encrypt(
        _ plaintext: Data,
        to recipient: JWK,
        enc: JWEContentEncryption,
        kid: String? = nil,
        apu: Data? = nil,
        apv: Data? = nil,
        extraHeader: JSONObject = JSONObject(),
        random: any RandomSource
    ) throws(JOSEError) -> CompactJWE {
        guard case .ec(let curve, _, _, _) = recipient.material, let recipientPoint = recipient.uncompressedPoint else {
            throw .invalidRecipientKey("kty \(recipient.kty) is not EC")
        }
        if let use = recipient.use, use != "enc" { throw .invalidRecipientKey("use is \"\(use)\", not \"enc\"") }
        if let alg = recipient.alg, alg != keyManagementAlgorithm { throw .invalidRecipientKey("alg is \"\(alg)\"") }
        for name in extraHeader.keys where reservedHeaderMembers.contains(name) {
            throw .invalidHeaderParameter(name)
        }

        let ephemeral = try JWEKeyAgreementKey.generate(ECDHCurve(curve), random: random)
        guard let z = ephemeral.sharedSecret(withPoint: recipientPoint) else {
            throw .invalidRecipientKey("x, y is not a point on \(curve.rawValue)")
        }
        let epk = ephemeral.publicJWK

        var header = JSONObject()
        header["alg"] = .string(keyManagementAlgorithm)
        header["enc"] = .string(enc.rawValue)
        if let kid { header["kid"] = .string(kid) }
        header["epk"] = .object(epk.jsonObject)
        if let apu { header["apu"] = .string(Base64URL.encode(apu)) }
        if let apv { header["apv"] = .string(Base64URL.encode(apv)) }
        for member in extraHeader { header[member.key] = member.value }
        try CompactJWS.checkCritical(header, understood: Set(header["crit"]?.arrayValue?.compactMap(\.stringValue) ?? []))

        let headerSegment = Base64URL.encode(header.serialized())
        let cek = ConcatKDF.derive(
            sharedSecret: z, algorithmID: enc.rawValue, keyBitLength: enc.keyBitLength, apu: apu ?? Data(), apv: apv ?? Data()
        )
        let iv = random.bytes(12)
        guard iv.count == 12 else { throw .randomSourceFailure }
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.seal(
                plaintext, using: cek, nonce: try AES.GCM.Nonce(data: iv), authenticating: Array(headerSegment.utf8))
        } catch {
            throw .encryptionFailed
        }
        let ciphertext = sealed.ciphertext
        let tag = sealed.tag
        let compact = headerSegment + ".." + Base64URL.encode(iv) + "." + Base64URL.encode(ciphertext) + "."
            + Base64URL.encode(tag)
        let utf8 = compact.utf8
        return CompactJWE(
            compact: compact, header: header, encryption: enc, ephemeralPublicKey: epk, apu: apu, apv: apv,
            iv: iv, ciphertext: ciphertext, tag: tag,
            headerEnd: utf8.index(utf8.startIndex, offsetBy: headerSegment.utf8.count)
        )
    }
}
