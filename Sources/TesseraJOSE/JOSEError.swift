/// Every rule TesseraJOSE enforces, one case each (the doc comment names the section). Descriptions never carry
/// key material, plaintext or derived secrets.
public enum JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: Compact serialization and encodings

    /// The compact serialization is longer than `JOSELimits.maxCompactLength`.
    case compactTooLong(length: Int, limit: Int)
    /// Not three (JWS, RFC 7515 §7.1) or five (JWE, RFC 7516 §7.1) dot-separated segments, or non-ASCII text.
    case malformedCompact
    /// A segment is not strict unpadded base64url (RFC 7515 §2: no padding, no line breaks, alphabet of
    /// RFC 4648 §5, zero trailing bits).
    case invalidBase64URL
    /// The protected header is not a JSON object (RFC 7515 §5.2 step 3–4, RFC 7516 §5.2 step 3–4).
    case invalidHeader(JSONError)
    /// The protected header is JSON but not an object.
    case headerNotObject
    /// The payload is not the JSON object the caller asked for (`payloadJSON()`, RFC 7519 §7.2 step 10).
    case invalidPayload(JSONError)
    /// The payload is JSON but not an object.
    case payloadNotObject

    // MARK: Header parameters

    /// No `alg` string in the header (RFC 7515 §4.1.1, RFC 7516 §4.1.1).
    case missingAlgorithm
    /// `alg` is `none`: unsecured JWS are never accepted (RFC 7518 §3.6, RFC 8725 §3.1).
    case algorithmNone
    /// An `alg` this library does not implement.
    case unsupportedAlgorithm(String)
    /// `crit` is not a non-empty array of unique strings naming header parameters that are present and not
    /// defined by the JOSE specifications (RFC 7515 §4.1.11).
    case invalidCritical(String)
    /// `crit` names extensions this library does not understand (RFC 7515 §4.1.11: the JWS is invalid).
    case unsupportedCritical([String])
    /// A registered header parameter has the wrong JSON type (e.g. `kid` not a string).
    case invalidHeaderParameter(String)

    // MARK: Keys

    /// The JWK violates RFC 7517/7518/8037 (missing or malformed member, point not on the curve, private key
    /// not matching the public key …). The reason names the member, never its value.
    case invalidJWK(String)
    /// A `kty` this library does not implement (RFC 7518 §6.1).
    case unsupportedKeyType(String)
    /// A `crv` this library does not implement for this use (RFC 7518 §6.2.1.1, RFC 8037 §2).
    case unsupportedCurve(String)
    /// A private key was needed (signing, decryption) but the JWK has no private part.
    case missingPrivateKey
    /// The PEM text is not a PKCS#8 or SEC 1 key of a supported type.
    case invalidPEM
    /// The certificate's public key is not one a JWS can be verified with.
    case unsupportedCertificateKey

    // MARK: JWS verification

    /// The header `alg` does not fit the key type (RFC 8725 §3.1: the key determines the algorithm).
    case algorithmKeyMismatch
    /// The ECDSA signature is ASN.1 DER; JWS requires the fixed-size R || S form (RFC 7518 §3.4).
    case derSignatureRejected
    /// The signature has the wrong length for the algorithm (RFC 7518 §3.4: 64/96/132 octets for
    /// ES256/ES384/ES512; RFC 8032 §5.1.6: 64 for Ed25519; the modulus size for RSA).
    case invalidSignatureLength(expected: Int, found: Int)
    /// The signature does not verify with the key over the signing input (RFC 7515 §5.2 step 8).
    case invalidSignature
    /// The JWS has no usable `x5c` header (RFC 7515 §4.1.6: a non-empty array of base64 DER certificates).
    case invalidX5C(String)
    /// The `x5c` chain failed validation; one entry per failure TesseraTrust reported.
    case x5cChainInvalid([String])
    /// Signing failed inside the crypto library.
    case signingFailed

    // MARK: JWE

    /// `enc` is absent (RFC 7516 §4.1.2).
    case missingEncryption
    /// An `enc` this library does not implement (RFC 7518 §5.1).
    case unsupportedEncryption(String)
    /// `zip` is present: compression is not supported (RFC 7516 §4.1.3; never used by OpenID4VP).
    case unsupportedCompression(String)
    /// `epk` is absent, not a public EC JWK of a supported curve, or not a point on that curve
    /// (RFC 7518 §4.6.1.1).
    case invalidEphemeralKey(String)
    /// `epk` is on another curve than the recipient key (RFC 7518 §4.6: both parties use the same curve).
    case ephemeralKeyCurveMismatch(expected: String, found: String)
    /// `apu` / `apv` is not a base64url string (RFC 7518 §4.6.1.2–3).
    case invalidAgreementPartyInfo(String)
    /// The JWE Encrypted Key is not empty, as direct key agreement requires (RFC 7518 §4.6, RFC 7516 §5.2 step 10).
    case encryptedKeyNotEmpty
    /// The Initialization Vector is not 96 bits (RFC 7518 §5.3).
    case invalidInitializationVector
    /// The Authentication Tag is not 128 bits (RFC 7518 §5.3).
    case invalidAuthenticationTag
    /// Decryption failed: key agreement, key derivation, or the AES-GCM tag (RFC 7516 §5.2 step 14, 16).
    /// Deliberately one case for all of them, so that the error is no oracle.
    case decryptionFailed
    /// The recipient JWK cannot be used for ECDH-ES (not an EC public key on P-256/P-384/P-521).
    case invalidRecipientKey(String)
    /// The random source did not deliver the bytes asked for.
    case randomSourceFailure
    /// Encryption failed inside the crypto library.
    case encryptionFailed

    public var description: String {
        switch self {
        case .compactTooLong(let length, let limit):
            return "compact serialization of \(length) characters exceeds the limit of \(limit)"
        case .malformedCompact:
            return "RFC 7515 §7.1 / RFC 7516 §7.1: not a compact serialization of ASCII dot-separated segments"
        case .invalidBase64URL: return "RFC 7515 §2: a segment is not strict unpadded base64url"
        case .invalidHeader(let error): return "RFC 7515 §5.2: protected header is not valid JSON (\(error))"
        case .headerNotObject: return "RFC 7515 §5.2: protected header is not a JSON object"
        case .invalidPayload(let error): return "RFC 7519 §7.2: payload is not valid JSON (\(error))"
        case .payloadNotObject: return "RFC 7519 §7.2: payload is not a JSON object"
        case .missingAlgorithm: return "RFC 7515 §4.1.1: header has no alg string"
        case .algorithmNone: return "RFC 8725 §3.1: alg none is never accepted"
        case .unsupportedAlgorithm(let alg): return "unsupported alg \"\(alg)\""
        case .invalidCritical(let reason): return "RFC 7515 §4.1.11: invalid crit (\(reason))"
        case .unsupportedCritical(let names):
            return "RFC 7515 §4.1.11: crit names unsupported extensions \(names)"
        case .invalidHeaderParameter(let name): return "header parameter \(name) has the wrong type"
        case .invalidJWK(let reason): return "RFC 7517: invalid JWK (\(reason))"
        case .unsupportedKeyType(let kty): return "RFC 7518 §6.1: unsupported kty \"\(kty)\""
        case .unsupportedCurve(let crv): return "unsupported crv \"\(crv)\""
        case .missingPrivateKey: return "the JWK has no private key"
        case .invalidPEM: return "not a PKCS#8 or SEC 1 PEM private key of a supported type"
        case .unsupportedCertificateKey: return "the certificate's public key type cannot verify a JWS"
        case .algorithmKeyMismatch: return "RFC 8725 §3.1: alg does not match the key type"
        case .derSignatureRejected: return "RFC 7518 §3.4: ECDSA signature is DER, not R || S"
        case .invalidSignatureLength(let expected, let found):
            return "signature is \(found) octets, expected \(expected)"
        case .invalidSignature: return "RFC 7515 §5.2: signature does not verify"
        case .invalidX5C(let reason): return "RFC 7515 §4.1.6: invalid x5c (\(reason))"
        case .x5cChainInvalid(let failures):
            return "x5c chain invalid: " + failures.joined(separator: "; ")
        case .signingFailed: return "signing failed"
        case .missingEncryption: return "RFC 7516 §4.1.2: header has no enc string"
        case .unsupportedEncryption(let enc): return "RFC 7518 §5.1: unsupported enc \"\(enc)\""
        case .unsupportedCompression(let zip): return "RFC 7516 §4.1.3: unsupported zip \"\(zip)\""
        case .invalidEphemeralKey(let reason): return "RFC 7518 §4.6.1.1: invalid epk (\(reason))"
        case .ephemeralKeyCurveMismatch(let expected, let found):
            return "RFC 7518 §4.6: epk is on \(found), the recipient key on \(expected)"
        case .invalidAgreementPartyInfo(let name): return "RFC 7518 §4.6.1: \(name) is not base64url"
        case .encryptedKeyNotEmpty: return "RFC 7518 §4.6: JWE Encrypted Key must be empty for ECDH-ES"
        case .invalidInitializationVector: return "RFC 7518 §5.3: IV is not 96 bits"
        case .invalidAuthenticationTag: return "RFC 7518 §5.3: authentication tag is not 128 bits"
        case .decryptionFailed: return "RFC 7516 §5.2: decryption failed"
        case .invalidRecipientKey(let reason): return "recipient key unusable for ECDH-ES (\(reason))"
        case .randomSourceFailure: return "the random source returned the wrong number of bytes"
        case .encryptionFailed: return "encryption failed"
        }
    }
}

/// Limits for untrusted compact serializations.
public struct JOSELimits: Sendable, Hashable {
    /// Longest accepted compact serialization, in characters.
    public var maxCompactLength: Int
    /// Limits for the JSON of headers (and of payloads read through `payloadJSON()`).
    public var json: JSONLimits
    /// Most certificates accepted in an `x5c` header.
    public var maxX5CCertificates: Int

    public init(maxCompactLength: Int, json: JSONLimits, maxX5CCertificates: Int = 10) {
        self.maxCompactLength = maxCompactLength
        self.json = json
        self.maxX5CCertificates = maxX5CCertificates
    }

    /// 8 MiB of compact text, `JSONLimits.default`, 10 x5c certificates.
    public static let `default` = JOSELimits(maxCompactLength: 8 << 20, json: .default)
}

/// JWS algorithms (RFC 7518 §3.1, RFC 8037 §3.1). `none` is deliberately absent. RS256 and PS256 verify only.
public enum JOSEAlgorithm: String, Sendable, CaseIterable {
    case es256 = "ES256"
    case es384 = "ES384"
    case es512 = "ES512"
    case edDSA = "EdDSA"
    case rs256 = "RS256"
    case ps256 = "PS256"
}
