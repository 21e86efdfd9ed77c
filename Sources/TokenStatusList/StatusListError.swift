/// Every rule the TokenStatusList module enforces, one case each; the doc comment names the section of
/// draft-ietf-oauth-status-list ("TSL"). Descriptions never carry key material or list contents.
public enum StatusListError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: The Status List (TSL §4)
    /// TSL §4.1: `bits` is not 1, 2, 4 or 8.
    case unsupportedBits(Int)
    /// TSL §4.1: a list holds between 1 and `Int32.max` statuses.
    case invalidCount(Int)
    /// TSL §4.1: the byte array holds no status.
    case emptyList
    /// TSL §4.1, §7: the status value does not fit in `bits` bits.
    case statusTooWide(status: UInt8, bits: Int)
    /// TSL §8.3 step 6 (and §13.1 for the issuer): the index lies outside the list.
    case indexOutOfRange(index: Int, count: Int)
    /// TSL §4.2, §4.3: the Status List is not `{bits, lst, aggregation_uri?}` with the right types; the reason names
    /// the member.
    case malformedStatusList(String)
    /// TSL §4.1: `lst` is not exactly one complete ZLIB stream (RFC 1950); the reason says how.
    case invalidCompression(String)
    /// TSL §4.1 (a decompression bomb guard, TSL §11.5): the decompressed list is larger than the limit.
    case listTooLarge(limit: Int)

    // MARK: The Status List Token (TSL §5)
    /// The token (or an encoded CBOR Status List read on its own) is longer than `StatusListLimits.maxTokenBytes`.
    case tokenTooLarge(length: Int, limit: Int)
    /// TSL §5.1, §5.2: not a compact JWS, or not a COSE_Sign1 tagged 18 with an attached payload that is a claims
    /// map; the reason says which.
    case malformedToken(String)
    /// TSL §5.1 (`typ` `statuslist+jwt`), §5.2 (label 16 `application/statuslist+cwt`): the type is absent or
    /// another one.
    case wrongType(String?)
    /// TSL §5.1, §5.2: a required claim (`sub`, `iat`, `status_list`) is absent.
    case missingClaim(String)
    /// TSL §5.1, §5.2, RFC 7519 §2: a claim has the wrong type or value (a NumericDate that is not a number,
    /// `ttl` not a positive integer, `exp` not after `iat` when issuing …).
    case invalidClaim(name: String, reason: String)
    /// TSL §8.3 step 3, §11.2: the signature does not verify with the key given or found; the reason names the
    /// rule of JOSE or COSE that failed.
    case signatureInvalid(String)
    /// TSL §8.3 step 3, §11.3 (RFC 7515 §4.1.6 `x5c`, RFC 9360 `x5chain`): the certificate chain is absent or does
    /// not validate against the trust anchors; one entry per failure.
    case certificateChainInvalid([String])
    /// TSL §8.3 step 4: `sub` is not the `uri` the token was fetched from.
    case subjectMismatch
    /// TSL §8.3 step 4, §13.7: `exp` (with the allowed skew) has passed.
    case expired
    /// TSL §8.3 step 4: `iat` (with the allowed skew) lies in the future.
    case issuedInFuture
    /// Signing a Status List Token failed; the reason names the JOSE or COSE error.
    case signingFailed(String)

    // MARK: The Referenced Token (TSL §6)
    /// TSL §6.2 (JSON), §6.3 (CBOR): the `status` claim is not `{"status_list": {"idx": uint, "uri": string}}`.
    case malformedReference(String)

    /// The rule broken in a few words, without the section (for callers that wrap this error in their own).
    public var reason: String {
        switch self {
        case .unsupportedBits(let bits): return "bits \(bits) is not 1, 2, 4 or 8"
        case .invalidCount(let count): return "count \(count) out of range"
        case .emptyList: return "empty list"
        case .statusTooWide(let status, let bits): return "status \(status) does not fit in \(bits) bits"
        case .indexOutOfRange(let index, let count): return "index \(index) outside the list of \(count) statuses"
        case .malformedStatusList(let reason): return reason
        case .invalidCompression(let reason): return reason
        case .listTooLarge(let limit): return "decompressed list exceeds \(limit) bytes"
        case .tokenTooLarge(let length, let limit): return "token of \(length) bytes exceeds the limit of \(limit)"
        case .malformedToken(let reason): return reason
        case .wrongType(let type): return "typ \(type.map { "\"\($0)\"" } ?? "absent") is not a Status List Token type"
        case .missingClaim(let name): return "\(name) missing"
        case .invalidClaim(let name, let reason): return "\(name) \(reason)"
        case .signatureInvalid(let reason): return "signature: \(reason)"
        case .certificateChainInvalid(let failures): return "certificate chain: " + failures.joined(separator: "; ")
        case .subjectMismatch: return "sub is not the referenced uri"
        case .expired: return "expired"
        case .issuedInFuture: return "iat in the future"
        case .signingFailed(let reason): return "signing failed (\(reason))"
        case .malformedReference(let reason): return reason
        }
    }

    /// The rule broken, with its section.
    public var description: String {
        switch self {
        case .unsupportedBits, .invalidCount, .emptyList, .statusTooWide, .invalidCompression, .listTooLarge:
            return "TSL §4.1: \(reason)"
        case .malformedStatusList: return "TSL §4.2/§4.3: Status List malformed (\(reason))"
        case .indexOutOfRange: return "TSL §8.3: \(reason)"
        case .tokenTooLarge: return "Status List Token too large: \(reason)"
        case .malformedToken, .wrongType, .missingClaim, .invalidClaim:
            return "TSL §5: Status List Token invalid (\(reason))"
        case .signatureInvalid, .certificateChainInvalid: return "TSL §8.3 step 3: \(reason)"
        case .subjectMismatch, .expired, .issuedInFuture: return "TSL §8.3 step 4: \(reason)"
        case .signingFailed: return "Status List Token \(reason)"
        case .malformedReference: return "TSL §6: status claim malformed (\(reason))"
        }
    }
}
