/// How strictly, and within which limits, bytes are decoded.
///
/// The default is strict (RFC 8949 §5.3 validity: no duplicate keys, valid UTF-8,
/// well-typed standard tags, no trailing bytes). `deterministic` also requires
/// core deterministic encoding (§4.2.1).
public struct CBORDecodingOptions: Sendable, Equatable {
    /// Reject anything not in §4.2.1 core deterministic form.
    public var deterministic: Bool
    /// Deepest nesting of arrays, maps and tags accepted.
    public var maxDepth: Int
    /// Most data items (of any kind, at any depth) accepted in one input.
    public var maxItems: Int

    public init(deterministic: Bool = false, maxDepth: Int = 64, maxItems: Int = 1_000_000) {
        self.deterministic = deterministic
        self.maxDepth = maxDepth
        self.maxItems = maxItems
    }

    public static let strict = CBORDecodingOptions()
    public static let deterministic = CBORDecodingOptions(deterministic: true)
}
