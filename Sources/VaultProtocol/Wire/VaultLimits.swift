import TesseraJOSE

/// The limits every vault decoder applies (vault-design.md, "Wire formats").
public enum VaultLimits {
    /// One message on the bus: an envelope, a plaintext event, a peer message.
    public static let maxMessageBytes = 256 * 1024
    /// Identifiers and names: record keys, ids, labels, profile field names, error codes.
    public static let maxKeyBytes = 256
    /// Values: a secret, a message's content, a credential, an invite, creds text.
    public static let maxValueBytes = 64 * 1024
    /// Entries of any list or string map.
    public static let maxListCount = 1000
    /// Session, connection and event ids appear in NATS subjects and in the envelope AAD: one token, at most this long.
    public static let maxTokenBytes = 128
    /// Integers are kept within 0…2⁵³, which every JSON implementation carries exactly (RFC 7493 §2.2).
    public static let maxInteger: Int64 = 1 << 53
    /// The JSON parser's limits for everything above (handler payloads nest four levels at most).
    public static let json = JSONLimits(maxBytes: maxMessageBytes, maxDepth: 16)
}
