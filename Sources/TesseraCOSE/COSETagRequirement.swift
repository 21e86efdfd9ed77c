/// How a reader treats the CBOR tag in front of a COSE message (RFC 9052 §2).
///
/// A message may be sent untagged when the application context says which structure to
/// expect — e.g. ISO/IEC 18013-5 `IssuerAuth` (COSE_Sign1) and `DeviceMac` (COSE_Mac0). When a
/// tag is present it must be the structure's own tag (18 for COSE_Sign1, 17 for COSE_Mac0);
/// any other tag is rejected with `COSEError.wrongTag`.
public enum COSETagRequirement: Sendable, Hashable {
    /// Tagged with the structure's tag, or untagged.
    case optional
    /// Tagged with the structure's tag.
    case required
    /// Untagged.
    case forbidden
}
