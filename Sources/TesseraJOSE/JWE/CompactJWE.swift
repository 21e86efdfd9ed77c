import Crypto
import Foundation
import TesseraCore

/// A JWE in the compact serialization (RFC 7516 §7.1) with `alg: ECDH-ES` (direct key agreement, RFC 7518 §4.6)
/// and `enc` A128GCM or A256GCM: `BASE64URL(header) . (empty) . BASE64URL(iv) . BASE64URL(ciphertext) .
/// BASE64URL(tag)`.
///
/// Parsing checks the structure (header, `epk`, empty encrypted key, IV and tag sizes); `decrypt` does the key
/// agreement, the Concat KDF and AES-GCM with the protected header segment as received as the AAD.
public struct CompactJWE: Sendable {
    /// The compact serialization as received (or as produced by `encrypt`).
    public let compact: String
    /// The decoded JWE Protected Header.
    public let header: JSONObject
    /// The content encryption algorithm (`enc`).
    public let encryption: JWEContentEncryption
    /// The sender's ephemeral public key (`epk`), validated as a point on its curve.
    public let ephemeralPublicKey: JWK
    /// `apu`, base64url-decoded (nil when absent).
    public let agreementPartyUInfo: Data?
    /// `apv`, base64url-decoded (nil when absent).
    public let agreementPartyVInfo: Data?
    /// The 96-bit Initialization Vector.
    public let initializationVector: Data
    public let ciphertext: Data
    /// The 128-bit Authentication Tag.
    public let authenticationTag: Data
    /// End of the header segment (the first dot) in `compact`.
    private let headerEnd: String.Index

    /// The key management algorithm implemented here.
    public static let keyManagementAlgorithm = "ECDH-ES"

    /// Parses a compact JWE (RFC 7516 §5.2 steps 1–4 and the checks that need no key).
    public init(parsing text: some StringProtocol, limits: JOSELimits = .default) throws(JOSEError) {
        let compact = String(text)
        guard compact.utf8.count <= limits.maxCompactLength else {
            throw .compactTooLong(length: compact.utf8.count, limit: limits.maxCompactLength)
        }
        let dots = CompactSegments.dotIndices(in: compact)
        guard dots.count == 4 else { throw .malformedCompact }
        let utf8 = compact.utf8
        let header = try CompactSegments.decodeHeader(utf8[utf8.startIndex..<dots[0]], limits: limits.json)
        let fields = try Self.checkHeader(header)
        // Direct key agreement: the JWE Encrypted Key is the empty octet sequence (RFC 7518 §4.6).
        guard utf8.index(after: dots[0]) == dots[1] else { throw .encryptedKeyNotEmpty }
        let iv = try CompactSegments.decode(utf8[utf8.index(after: dots[1])..<dots[2]])
        let ciphertext = try CompactSegments.decode(utf8[utf8.index(after: dots[2])..<dots[3]])
        let tag = try CompactSegments.decode(utf8[utf8.index(after: dots[3])...])
        guard iv.count == 12 else { throw .invalidInitializationVector }
        guard tag.count == 16 else { throw .invalidAuthenticationTag }

        self.compact = compact
        self.header = header
        self.encryption = fields.encryption
        self.ephemeralPublicKey = fields.epk
        self.agreementPartyUInfo = fields.apu
        self.agreementPartyVInfo = fields.apv
        self.initializationVector = iv
        self.ciphertext = ciphertext
        self.authenticationTag = tag
        self.headerEnd = dots[0]
    }

    init(
        compact: String, header: JSONObject, encryption: JWEContentEncryption, ephemeralPublicKey: JWK,
        apu: Data?, apv: Data?, iv: Data, ciphertext: Data, tag: Data, headerEnd: String.Index
    ) {
        self.compact = compact
        self.header = header
        self.encryption = encryption
        self.ephemeralPublicKey = ephemeralPublicKey
        self.agreementPartyUInfo = apu
        self.agreementPartyVInfo = apv
        self.initializationVector = iv
        self.ciphertext = ciphertext
        self.authenticationTag = tag
        self.headerEnd = headerEnd
    }

    /// The base64url protected header segment as received: its ASCII bytes are the AAD (RFC 7516 §5.2 step 14).
    public var protectedHeaderSegment: Substring { compact[..<headerEnd] }

    /// `kid`, when the header has one.
    public var keyID: String? { header["kid"]?.stringValue }

    // MARK: Decryption

    /// Decrypts with the recipient's private key (RFC 7516 §5.2 steps 10–16). The `epk` must be on the key's
    /// curve (`ephemeralKeyCurveMismatch`). Key agreement, key derivation and tag failures all surface as the one
    /// `decryptionFailed`, so the error is no oracle.
    public func decrypt(with key: JWEKeyAgreementKey) throws(JOSEError) -> Data {
        guard case .ec(let curve, _, _, _) = ephemeralPublicKey.material, let point = ephemeralPublicKey.uncompressedPoint
        else { throw .invalidEphemeralKey("not an EC key") }
        guard ECDHCurve(curve) == key.curve else {
            throw .ephemeralKeyCurveMismatch(expected: key.curve.rawValue, found: curve.rawValue)
        }
        guard let z = key.sharedSecret(withPoint: point) else { throw .decryptionFailed }
        let cek = ConcatKDF.derive(
            sharedSecret: z,
            algorithmID: encryption.rawValue,
            keyBitLength: encryption.keyBitLength,
            apu: agreementPartyUInfo ?? Data(),
            apv: agreementPartyVInfo ?? Data()
        )
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: initializationVector), ciphertext: ciphertext, tag: authenticationTag)
            return try AES.GCM.open(box, using: cek, authenticating: Array(protectedHeaderSegment.utf8))
        } catch {
            throw .decryptionFailed
        }
    }

    /// Decrypts with a private EC JWK (see `decrypt(with:)`).
    public func decrypt(with jwk: JWK) throws(JOSEError) -> Data {
        try decrypt(with: JWEKeyAgreementKey(jwk: jwk))
    }

    // MARK: Header rules

    struct HeaderFields {
        var encryption: JWEContentEncryption
        var epk: JWK
        var apu: Data?
        var apv: Data?
    }

    /// RFC 7516 §4.1 and RFC 7518 §4.6.1: `alg` ECDH-ES, `enc` A128GCM/A256GCM, no `zip`, a valid `crit`,
    /// `epk` a public EC JWK on a supported curve, `apu`/`apv` base64url strings.
    static func checkHeader(_ header: JSONObject) throws(JOSEError) -> HeaderFields {
        guard let alg = header["alg"]?.stringValue else { throw .missingAlgorithm }
        if alg.lowercased() == "none" { throw .algorithmNone }
        guard alg == keyManagementAlgorithm else { throw .unsupportedAlgorithm(alg) }
        guard let encName = header["enc"]?.stringValue else { throw .missingEncryption }
        guard let encryption = JWEContentEncryption(rawValue: encName) else { throw .unsupportedEncryption(encName) }
        if let zip = header["zip"] { throw .unsupportedCompression(zip.stringValue ?? zip.serializedString) }
        try CompactJWS.checkCritical(header, understood: [])
        for name in ["kid", "typ", "cty"] {
            if let value = header[name], value.stringValue == nil { throw .invalidHeaderParameter(name) }
        }
        let epk = try ephemeralKey(in: header)
        return HeaderFields(
            encryption: encryption,
            epk: epk,
            apu: try partyInfo(header, "apu"),
            apv: try partyInfo(header, "apv")
        )
    }

    private static func ephemeralKey(in header: JSONObject) throws(JOSEError) -> JWK {
        guard let value = header["epk"] else { throw .invalidEphemeralKey("epk is missing") }
        guard let object = value.objectValue else { throw .invalidEphemeralKey("epk is not a JSON object") }
        let jwk: JWK
        do {
            jwk = try JWK(json: object)
        } catch {
            throw .invalidEphemeralKey("\(error)")
        }
        guard case .ec = jwk.material else { throw .invalidEphemeralKey("kty \(jwk.kty) is not EC") }
        guard !jwk.isPrivate else { throw .invalidEphemeralKey("epk carries a private key") }
        return jwk
    }

    private static func partyInfo(_ header: JSONObject, _ name: String) throws(JOSEError) -> Data? {
        guard let value = header[name] else { return nil }
        guard let text = value.stringValue, let bytes = try? Base64URL.joseDecode(text) else {
            throw .invalidAgreementPartyInfo(name)
        }
        return bytes
    }
}
