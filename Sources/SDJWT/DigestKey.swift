/// The base64url text of a Disclosure digest held inline (up to sha-512's 86 characters), the key of the Disclosure
/// index in `DisclosureProcessor`: a Disclosure's digest is never built as a String, and a digest from the payload
/// is looked up by its bytes as they are. Two keys are equal exactly when the two texts are.
struct DigestKey: Hashable {
    static let capacity = 88
    private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    private var count = 0

    /// The key of a digest's raw bytes (at most 64: the text of 66 bytes would not fit).
    init(digest: UnsafeRawBufferPointer) {
        precondition(DigestText.length(ofDigest: digest.count) <= Self.capacity, "digest longer than sha-512")
        count = withUnsafeMutableBytes(of: &words) { raw in
            DigestText.encode(digest, into: raw.bindMemory(to: UInt8.self))
        }
    }

    /// The key of a digest as written in a payload; nil when it is too long to be any supported digest (it can match
    /// no Disclosure).
    init?(text: String) {
        var text = text
        let count = text.withUTF8 { bytes -> Int? in
            guard bytes.count <= Self.capacity else { return nil }
            withUnsafeMutableBytes(of: &words) { raw in raw.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
            return bytes.count
        }
        guard let count else { return nil }
        self.count = count
    }

    static func == (lhs: DigestKey, rhs: DigestKey) -> Bool {
        // Bytes past `count` are zero in both, so comparing every word compares the texts.
        guard lhs.count == rhs.count else { return false }
        return withUnsafeBytes(of: lhs.words) { l in
            withUnsafeBytes(of: rhs.words) { r in
                (0..<capacity / 8).allSatisfy { word in
                    l.load(fromByteOffset: word * 8, as: UInt64.self) == r.load(fromByteOffset: word * 8, as: UInt64.self)
                }
            }
        }
    }

    /// The first 16 characters only: a digest's base64url text is uniformly spread, so they already carry 96 bits
    /// (equal keys still have equal hashes, and `==` compares every character).
    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }
}
