import Foundation
import TesseraCBOR
import TesseraCOSE

/// A Status List Token in CWT form (TSL §5.2): a COSE_Sign1 tagged 18 (never wrapped in the CWT tag 61) whose
/// protected header carries `typ` (label 16) `application/statuslist+cwt`, and whose payload is a CWT claims map:
/// `sub` (2), `iat` (6), optional `exp` (4) and `ttl` (65534), and `status_list` (65533), the CBOR Status List.
/// The token bytes are kept as received; the signature is checked by `verifySignature` over the protected header
/// and payload exactly as they arrived.
public struct StatusListCWT: StatusListTokenRepresentation {
    /// The `typ` of the protected header (label 16, RFC 9596): the full media type.
    public static let type = StatusListMediaType.cwt

    /// The CWT claim keys TSL §5.2 uses (RFC 8392 §3 for 2, 4, 6; TSL §14.3 for 65533 and 65534).
    enum ClaimKey {
        static let subject = 2
        static let expiresAt = 4
        static let issuedAt = 6
        static let statusList = 65533
        static let timeToLive = 65534
    }

    /// The `typ` header parameter (RFC 9596).
    static let typeLabel: COSEHeaderLabel = 16

    /// The token as received (or as signed): the tagged COSE_Sign1.
    public let bytes: Data
    /// The COSE_Sign1 read from `bytes`.
    public let message: COSESign1
    /// The claims read from the payload.
    public let claims: StatusListTokenClaims

    /// Parses a CWT Status List Token within `limits`; the signature is not checked here.
    ///
    /// Checked: one CBOR data item, strictly encoded (RFC 8949 §5.3); a COSE_Sign1 with tag 18 (TSL §5.2 forbids
    /// tag 61; COSE_Mac0, tag 17, is not accepted: this reader takes signed tokens only, TSL §11.6); `typ` in the
    /// protected header (text, compared without regard to case; the CoAP Content-Format number is still TBD);
    /// an attached payload that is a claims map with `sub` (text), `iat` (a NumericDate), `status_list` (map);
    /// `exp` a NumericDate and `ttl` a positive unsigned integer when present. Other claims are ignored.
    public init(bytes: Data, limits: StatusListLimits = .default) throws(StatusListError) {
        let item = try limits.decodeCBOR(bytes, failure: StatusListError.malformedToken)
        switch item {
        case .tagged(CBORTag.coseSign1, _): break
        case .tagged(61, _): throw .malformedToken("the CWT tag 61 is not allowed, COSE_Sign1 tag 18 is required")
        case .tagged(CBORTag.coseMac0, _): throw .malformedToken("COSE_Mac0 is not accepted, only COSE_Sign1")
        default: throw .malformedToken("not a COSE_Sign1 tagged 18")
        }
        let message: COSESign1
        do {
            message = try COSESign1(cbor: item, tag: .required)
        } catch {
            throw .malformedToken("COSE_Sign1: \(error)")
        }
        let type = message.protected.headers[Self.typeLabel]
        guard let typeText = type?.textValue, typeText.lowercased() == Self.type else {
            throw .wrongType(type.map { $0.textValue ?? $0.kindName })
        }
        guard let payload = message.payload else { throw .malformedToken("the payload is detached") }
        let claimsItem: CBOR
        do {
            claimsItem = try CBOR.decode(payload, options: limits.cbor)
        } catch {
            throw .malformedToken("payload is not CBOR (\(error))")
        }
        guard let map = claimsItem.mapValue else { throw .malformedToken("payload is not a claims map") }
        self.bytes = bytes
        self.message = message
        self.claims = try Self.claims(map, limits: limits)
    }

    private static func claims(_ map: CBORMap, limits: StatusListLimits) throws(StatusListError) -> StatusListTokenClaims {
        guard let subjectItem = map[ClaimKey.subject] else { throw .missingClaim("sub") }
        guard let subject = subjectItem.textValue else { throw .invalidClaim(name: "sub", reason: "is not a text string") }
        guard let iat = map[ClaimKey.issuedAt] else { throw .missingClaim("iat") }
        let issuedAt = try numericDate(iat, claim: "iat")
        let expiresAt = try map[ClaimKey.expiresAt].map { (item) throws(StatusListError) in try numericDate(item, claim: "exp") }
        var timeToLive: Int?
        if let ttl = map[ClaimKey.timeToLive] {
            guard let seconds = ttl.uint64Value, seconds > 0, let whole = Int(exactly: seconds) else {
                throw .invalidClaim(name: "ttl", reason: "is not a positive integer")
            }
            timeToLive = whole
        }
        guard let listItem = map[ClaimKey.statusList] else { throw .missingClaim("status_list") }
        return StatusListTokenClaims(
            statusList: try StatusList(cbor: listItem, limits: limits), subject: subject, issuedAt: issuedAt,
            expiresAt: expiresAt, timeToLive: timeToLive)
    }

    /// RFC 8392 §2: a NumericDate is an integer or a floating-point number, without the tag 1 of RFC 8949 §3.4.2.
    private static func numericDate(_ item: CBOR, claim: String) throws(StatusListError) -> Date {
        if let seconds = item.int64Value { return Date(timeIntervalSince1970: Double(seconds)) }
        if let seconds = item.doubleValue { return try NumericDate.date(seconds, claim: claim) }
        throw .invalidClaim(name: claim, reason: "is not a NumericDate")
    }
}
