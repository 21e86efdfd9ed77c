import TesseraJOSE

/// Every rule the SDJWT module enforces, one case each; the doc comment names the section (RFC 9901 unless said
/// otherwise; "VC" is draft-ietf-oauth-sd-jwt-vc, "TSL" is draft-ietf-oauth-status-list). Descriptions never carry
/// salts, key material or claim values.
public enum SDJWTError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: Serialization (§4, §8)
    /// The serialization is longer than `SDJWTLimits.maxLength`.
    case tooLarge(length: Int, limit: Int)
    /// More Disclosures than `SDJWTLimits.maxDisclosures`.
    case tooManyDisclosures(count: Int, limit: Int)
    /// Not `<JWT>~<D1>~…~<Dn>~[<KB-JWT>]` (§4) or not the JSON serialization of §8; the reason says which part.
    case malformedSerialization(String)
    /// The Issuer-signed JWT is not a valid compact JWS (§4.1, RFC 7515).
    case malformedIssuerSignedJWT(JOSEError)
    /// The Issuer-signed JWT payload is not a JSON object (§4.1, RFC 7519 §7.2).
    case malformedPayload(JOSEError)

    // MARK: Disclosures (§4.2)
    /// A Disclosure is not strict unpadded base64url (§4.2).
    case disclosureNotBase64URL
    /// A Disclosure does not decode to UTF-8 JSON text that is an array (§4.2).
    case disclosureNotJSONArray
    /// A Disclosure array has neither 2 (array element, §4.2.2) nor 3 (object property, §4.2.1) elements.
    case disclosureWrongElementCount(Int)
    /// The salt of a Disclosure is not a string (§4.2.1).
    case disclosureSaltNotString
    /// The claim name of a 3-element Disclosure is not a string (§4.2.1).
    case disclosureClaimNameNotString

    // MARK: Verification of the SD-JWT (§7.1)
    /// §7.1 step 2: the Issuer-signed JWT signature does not verify with the issuer key.
    case issuerSignatureInvalid(JOSEError)
    /// §4.1.1: `_sd_alg` names a hash algorithm that is not supported (sha-256, sha-384, sha-512), or is not a string.
    case unsupportedHashAlgorithm(String)
    /// §4.2.4.1: an `_sd` member is not an array of strings.
    case sdNotArrayOfStrings
    /// §4.2.4.2: an array element object with the key `...` has other keys, or its value is not a string.
    case malformedArrayElementDigest
    /// §7.1 step 4: the digest appears more than once in the payload (directly or through Disclosures).
    case duplicateDigest(String)
    /// §7.1 step 5: the Disclosure with this digest is referenced nowhere in the payload or other Disclosures.
    case unreferencedDisclosure(String)
    /// §7.1 step 3.3.2.2: a Disclosure's claim name is `_sd` or `...`.
    case reservedClaimName(String)
    /// §7.1 step 3.3.2.1: a digest in an `_sd` array refers to a 2-element (array element) Disclosure.
    case arrayElementDisclosureInObject(String)
    /// §7.1 step 3.3.3.1: a `{"...": digest}` array element refers to a 3-element (object property) Disclosure.
    case objectPropertyDisclosureInArray(String)
    /// §7.1 step 3.3.2.3: the Disclosure's claim name already exists at the level of the `_sd` key.
    case claimNameCollision(String)
    /// Recursive Disclosures nest deeper than `SDJWTLimits.maxDepth`.
    case nestingTooDeep(limit: Int)
    /// §7.1 step 6, RFC 7519 §4.1.4: `exp` (with the allowed skew) has passed.
    case expired
    /// §7.1 step 6, RFC 7519 §4.1.5: `nbf` (with the allowed skew) lies in the future.
    case notYetValid
    /// §7.1 step 6, RFC 7519 §4.1.6: `iat` (with the allowed skew) lies in the future.
    case issuedInFuture
    /// RFC 7519 §2: `exp`, `nbf` or `iat` is not a NumericDate.
    case invalidTimeClaim(String)

    // MARK: Key Binding (§4.3, §7.3)
    /// §7.3 step 2: the policy requires Key Binding and the presentation has no KB-JWT.
    case keyBindingRequired
    /// §7.3 step 4.1, RFC 7800 §3.2: no `cnf` with a `jwk` in the payload, or the JWK is not usable for verification.
    case invalidConfirmationKey(String)
    /// §4.3: the KB-JWT is not a valid compact JWS.
    case malformedKeyBindingJWT(JOSEError)
    /// §7.3 step 4.4: the KB-JWT `typ` header is not `kb+jwt`.
    case keyBindingTypeInvalid(String?)
    /// §7.3 step 4.3: the KB-JWT signature does not verify with the key in `cnf`.
    case keyBindingSignatureInvalid(JOSEError)
    /// §4.3: a required KB-JWT claim (`iat`, `aud`, `nonce`, `sd_hash`) is missing or has the wrong type.
    case keyBindingClaimMissing(String)
    /// §7.3 step 4.6: `aud` is not the expected audience.
    case keyBindingAudienceMismatch
    /// §7.3 step 4.6: `nonce` is not the expected nonce.
    case keyBindingNonceMismatch
    /// §7.3 step 4.5: the KB-JWT `iat` lies outside the accepted window.
    case keyBindingIssuedAtOutsideWindow
    /// §7.3 step 4.7, §4.3.1: `sd_hash` is not the digest of the presented SD-JWT.
    case sdHashMismatch
    /// The holder key given to `present` is not the key in `cnf` (§4.3: the KB-JWT must be signed with it).
    case holderKeyMismatch

    // MARK: SD-JWT VC
    /// VC §3.2.1: the `typ` header is not an accepted media type (`dc+sd-jwt`; `vc+sd-jwt` only if allowed).
    case typeNotAccepted(String?)
    /// VC §3.2.2.2: `vct` is missing or not a string.
    case missingVCT
    /// VC §3.2.2.2: a claim that must not be selectively disclosed (`iss`, `nbf`, `exp`, `cnf`, `vct`,
    /// `vct#integrity`, `status`) came from a Disclosure, or is asked to be disclosable at issuance.
    case nonDisclosableClaim(String)
    /// VC §3.5: no issuer key could be determined (no `x5c`, no metadata key matching `kid` …).
    case issuerKeyUnresolved(String)
    /// VC §3.5, RFC 7515 §4.1.6: the `x5c` chain did not validate against the trust anchors.
    case x5cChainInvalid([String])
    /// JWT VC Issuer Metadata §3–§5: the metadata could not be fetched or is invalid (`issuer` mismatch, no `jwks`).
    case issuerMetadataInvalid(String)

    // MARK: Token Status List
    /// TSL §6.1: the `status` claim is not `{"status_list": {"idx": int, "uri": string}}`.
    case statusClaimMalformed(String)
    /// The Status List Token could not be fetched.
    case statusListFetchFailed(String)
    /// TSL §5.1, §8.3: the Status List Token is invalid (typ, signature, `sub` ≠ `uri`, expired …).
    case statusListTokenInvalid(String)
    /// TSL §4.1: the Status List is malformed (`bits` not 1/2/4/8, `lst` not base64url zlib data, too large).
    case statusListMalformed(String)
    /// TSL §8.3: the index is outside the Status List.
    case statusIndexOutOfRange(index: Int, count: Int)
    /// TSL §7.1: the Referenced Token's status is not VALID (0x00): 0x01 INVALID, 0x02 SUSPENDED, or other.
    case credentialStatusNotValid(UInt8)

    // MARK: Issuance and presentation
    /// The ClaimsPathPointer is malformed (OpenID4VP §7: non-empty array of strings, non-negative integers, null).
    case invalidClaimsPath(String)
    /// Issuance: a disclosable path selects nothing in the claims, or names a reserved key.
    case disclosablePathNotFound(ClaimsPathPointer)
    /// Presentation: the path selects no claim of the SD-JWT.
    case claimNotFound(ClaimsPathPointer)
    /// §9.3: salts must carry at least 128 bits of entropy.
    case saltTooShort(bytes: Int)
    /// The random source did not deliver the bytes asked for.
    case randomSourceFailure
    /// Signing (the Issuer-signed JWT, the KB-JWT, a Status List Token) failed.
    case signingFailed(JOSEError)

    /// The case name, stable for machine-readable output (`tessera sdjwt verify --json`).
    public var code: String {
        switch self {
        case .tooLarge: return "tooLarge"
        case .tooManyDisclosures: return "tooManyDisclosures"
        case .malformedSerialization: return "malformedSerialization"
        case .malformedIssuerSignedJWT: return "malformedIssuerSignedJWT"
        case .malformedPayload: return "malformedPayload"
        case .disclosureNotBase64URL: return "disclosureNotBase64URL"
        case .disclosureNotJSONArray: return "disclosureNotJSONArray"
        case .disclosureWrongElementCount: return "disclosureWrongElementCount"
        case .disclosureSaltNotString: return "disclosureSaltNotString"
        case .disclosureClaimNameNotString: return "disclosureClaimNameNotString"
        case .issuerSignatureInvalid: return "issuerSignatureInvalid"
        case .unsupportedHashAlgorithm: return "unsupportedHashAlgorithm"
        case .sdNotArrayOfStrings: return "sdNotArrayOfStrings"
        case .malformedArrayElementDigest: return "malformedArrayElementDigest"
        case .duplicateDigest: return "duplicateDigest"
        case .unreferencedDisclosure: return "unreferencedDisclosure"
        case .reservedClaimName: return "reservedClaimName"
        case .arrayElementDisclosureInObject: return "arrayElementDisclosureInObject"
        case .objectPropertyDisclosureInArray: return "objectPropertyDisclosureInArray"
        case .claimNameCollision: return "claimNameCollision"
        case .nestingTooDeep: return "nestingTooDeep"
        case .expired: return "expired"
        case .notYetValid: return "notYetValid"
        case .issuedInFuture: return "issuedInFuture"
        case .invalidTimeClaim: return "invalidTimeClaim"
        case .keyBindingRequired: return "keyBindingRequired"
        case .invalidConfirmationKey: return "invalidConfirmationKey"
        case .malformedKeyBindingJWT: return "malformedKeyBindingJWT"
        case .keyBindingTypeInvalid: return "keyBindingTypeInvalid"
        case .keyBindingSignatureInvalid: return "keyBindingSignatureInvalid"
        case .keyBindingClaimMissing: return "keyBindingClaimMissing"
        case .keyBindingAudienceMismatch: return "keyBindingAudienceMismatch"
        case .keyBindingNonceMismatch: return "keyBindingNonceMismatch"
        case .keyBindingIssuedAtOutsideWindow: return "keyBindingIssuedAtOutsideWindow"
        case .sdHashMismatch: return "sdHashMismatch"
        case .holderKeyMismatch: return "holderKeyMismatch"
        case .typeNotAccepted: return "typeNotAccepted"
        case .missingVCT: return "missingVCT"
        case .nonDisclosableClaim: return "nonDisclosableClaim"
        case .issuerKeyUnresolved: return "issuerKeyUnresolved"
        case .x5cChainInvalid: return "x5cChainInvalid"
        case .issuerMetadataInvalid: return "issuerMetadataInvalid"
        case .statusClaimMalformed: return "statusClaimMalformed"
        case .statusListFetchFailed: return "statusListFetchFailed"
        case .statusListTokenInvalid: return "statusListTokenInvalid"
        case .statusListMalformed: return "statusListMalformed"
        case .statusIndexOutOfRange: return "statusIndexOutOfRange"
        case .credentialStatusNotValid: return "credentialStatusNotValid"
        case .invalidClaimsPath: return "invalidClaimsPath"
        case .disclosablePathNotFound: return "disclosablePathNotFound"
        case .claimNotFound: return "claimNotFound"
        case .saltTooShort: return "saltTooShort"
        case .randomSourceFailure: return "randomSourceFailure"
        case .signingFailed: return "signingFailed"
        }
    }

    public var description: String {
        switch self {
        case .tooLarge(let length, let limit): return "SD-JWT of \(length) characters exceeds the limit of \(limit)"
        case .tooManyDisclosures(let count, let limit): return "\(count) Disclosures exceed the limit of \(limit)"
        case .malformedSerialization(let reason): return "RFC 9901 §4: malformed SD-JWT (\(reason))"
        case .malformedIssuerSignedJWT(let error): return "RFC 9901 §4.1: Issuer-signed JWT invalid (\(error))"
        case .malformedPayload(let error): return "RFC 9901 §4.1: payload invalid (\(error))"
        case .disclosureNotBase64URL: return "RFC 9901 §4.2: Disclosure is not base64url"
        case .disclosureNotJSONArray: return "RFC 9901 §4.2: Disclosure is not a JSON array"
        case .disclosureWrongElementCount(let n): return "RFC 9901 §4.2: Disclosure has \(n) elements, not 2 or 3"
        case .disclosureSaltNotString: return "RFC 9901 §4.2.1: Disclosure salt is not a string"
        case .disclosureClaimNameNotString: return "RFC 9901 §4.2.1: Disclosure claim name is not a string"
        case .issuerSignatureInvalid(let error): return "RFC 9901 §7.1 step 2: issuer signature invalid (\(error))"
        case .unsupportedHashAlgorithm(let name): return "RFC 9901 §4.1.1: unsupported _sd_alg \"\(name)\""
        case .sdNotArrayOfStrings: return "RFC 9901 §4.2.4.1: _sd is not an array of strings"
        case .malformedArrayElementDigest:
            return "RFC 9901 §4.2.4.2: array element digest object must be exactly {\"...\": string}"
        case .duplicateDigest(let digest): return "RFC 9901 §7.1 step 4: digest \(digest) appears more than once"
        case .unreferencedDisclosure(let digest):
            return "RFC 9901 §7.1 step 5: Disclosure with digest \(digest) is not referenced"
        case .reservedClaimName(let name): return "RFC 9901 §7.1 step 3: reserved claim name \"\(name)\" in a Disclosure"
        case .arrayElementDisclosureInObject(let digest):
            return "RFC 9901 §7.1 step 3: digest \(digest) in _sd refers to a 2-element Disclosure"
        case .objectPropertyDisclosureInArray(let digest):
            return "RFC 9901 §7.1 step 3: array digest \(digest) refers to a 3-element Disclosure"
        case .claimNameCollision(let name):
            return "RFC 9901 §7.1 step 3: claim \"\(name)\" already exists at the level of _sd"
        case .nestingTooDeep(let limit): return "Disclosures nest deeper than \(limit) levels"
        case .expired: return "RFC 7519 §4.1.4: the SD-JWT has expired (exp)"
        case .notYetValid: return "RFC 7519 §4.1.5: the SD-JWT is not yet valid (nbf)"
        case .issuedInFuture: return "RFC 7519 §4.1.6: iat lies in the future"
        case .invalidTimeClaim(let name): return "RFC 7519 §2: \(name) is not a NumericDate"
        case .keyBindingRequired: return "RFC 9901 §7.3 step 2: Key Binding required but no KB-JWT presented"
        case .invalidConfirmationKey(let reason): return "RFC 9901 §7.3, RFC 7800: no usable cnf key (\(reason))"
        case .malformedKeyBindingJWT(let error): return "RFC 9901 §4.3: KB-JWT invalid (\(error))"
        case .keyBindingTypeInvalid(let typ): return "RFC 9901 §7.3: KB-JWT typ is \(typ.map { "\"\($0)\"" } ?? "absent"), not kb+jwt"
        case .keyBindingSignatureInvalid(let error): return "RFC 9901 §7.3: KB-JWT signature invalid (\(error))"
        case .keyBindingClaimMissing(let name): return "RFC 9901 §4.3: KB-JWT claim \(name) missing or of the wrong type"
        case .keyBindingAudienceMismatch: return "RFC 9901 §7.3: KB-JWT aud is not the expected audience"
        case .keyBindingNonceMismatch: return "RFC 9901 §7.3: KB-JWT nonce is not the expected nonce"
        case .keyBindingIssuedAtOutsideWindow: return "RFC 9901 §7.3: KB-JWT iat outside the accepted window"
        case .sdHashMismatch: return "RFC 9901 §4.3.1: sd_hash does not match the presented SD-JWT"
        case .holderKeyMismatch: return "RFC 9901 §4.3: the holder key is not the key in cnf"
        case .typeNotAccepted(let typ): return "SD-JWT VC §3.2.1: typ \(typ.map { "\"\($0)\"" } ?? "absent") not accepted"
        case .missingVCT: return "SD-JWT VC §3.2.2.2: vct missing or not a string"
        case .nonDisclosableClaim(let name): return "SD-JWT VC §3.2.2.2: \(name) must not be selectively disclosable"
        case .issuerKeyUnresolved(let reason): return "SD-JWT VC §3.5: issuer key not found (\(reason))"
        case .x5cChainInvalid(let failures): return "x5c chain invalid: " + failures.joined(separator: "; ")
        case .issuerMetadataInvalid(let reason): return "JWT VC Issuer Metadata invalid (\(reason))"
        case .statusClaimMalformed(let reason): return "Token Status List §6.1: status claim malformed (\(reason))"
        case .statusListFetchFailed(let reason): return "Status List Token fetch failed (\(reason))"
        case .statusListTokenInvalid(let reason): return "Token Status List §8.3: Status List Token invalid (\(reason))"
        case .statusListMalformed(let reason): return "Token Status List §4.1: Status List malformed (\(reason))"
        case .statusIndexOutOfRange(let index, let count):
            return "Token Status List §8.3: index \(index) outside the list of \(count) statuses"
        case .credentialStatusNotValid(let status):
            let name = status == 1 ? "INVALID" : status == 2 ? "SUSPENDED" : "0x" + String(status, radix: 16)
            return "Token Status List §7.1: credential status is \(name)"
        case .invalidClaimsPath(let reason): return "OpenID4VP §7: invalid claims path pointer (\(reason))"
        case .disclosablePathNotFound(let path): return "disclosable path \(path) selects no claim"
        case .claimNotFound(let path): return "path \(path) selects no claim of the SD-JWT"
        case .saltTooShort(let bytes): return "RFC 9901 §9.3: salt of \(bytes) bytes is shorter than 128 bits"
        case .randomSourceFailure: return "the random source returned the wrong number of bytes"
        case .signingFailed(let error): return "signing failed (\(error))"
        }
    }
}
