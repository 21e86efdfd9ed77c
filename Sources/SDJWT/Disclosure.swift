import Foundation
import TesseraCore
import TesseraJOSE

/// A Disclosure (§4.2): base64url of the UTF-8 JSON array `[salt, claim name, claim value]` (object property,
/// §4.2.1) or `[salt, claim value]` (array element, §4.2.2).
///
/// The base64url string is kept exactly as received: its digest (§4.2.3) is taken over that string, never over a
/// re-encoding of the decoded array.
public struct Disclosure: Sendable, Hashable {
    /// The base64url string as received or as issued. A parsed Disclosure keeps it as a slice of the text it was
    /// parsed from (an SD-JWT's Disclosures share the presentation's storage instead of each holding a copy).
    public var encoded: String { String(text) }
    private let text: Substring
    /// The salt (§4.2.1).
    public let salt: String
    /// The claim name of an object property Disclosure; nil for an array element Disclosure.
    public let claimName: String?
    /// The claim value (may itself hold `_sd` digests: recursive disclosure, §4.2.6).
    public let claimValue: JSONValue

    /// Parses a Disclosure string (§4.2). Only its form is checked here; the rules that depend on where its digest
    /// is referenced (§7.1 step 3) belong to verification.
    public init(parsing text: some StringProtocol, limits: JSONLimits = .default) throws(SDJWTError) {
        let encoded = Substring(text)
        // The decoded JSON is only read once, so it stays in a temporary buffer and the array is never built;
        // `encoded` is what is hashed.
        let parsed: Result<JSONShortArray?, JSONError>
        do {
            parsed = try JSONValue.parseShortArray(base64URL: encoded, limits: limits)
        } catch {
            throw .disclosureNotBase64URL
        }
        guard case .success(let array) = parsed, let elements = array else { throw .disclosureNotJSONArray }
        guard elements.count == 2 || elements.count == 3, let value = elements[elements.count - 1] else {
            throw .disclosureWrongElementCount(elements.count)
        }
        guard let salt = elements[0]?.stringValue else { throw .disclosureSaltNotString }
        if elements.count == 3 {
            guard let name = elements[1]?.stringValue else { throw .disclosureClaimNameNotString }
            self.claimName = name
        } else {
            self.claimName = nil
        }
        self.claimValue = value
        self.text = encoded
        self.salt = salt
    }

    /// A new Disclosure: the array is serialized compactly (§4.2.1 allows any JSON encoding) and base64url-encoded.
    public init(salt: String, claimName: String?, claimValue: JSONValue) {
        var array: [JSONValue] = [.string(salt)]
        if let claimName { array.append(.string(claimName)) }
        array.append(claimValue)
        self.text = Substring(Base64URL.encode(JSONValue.array(array).serialized()))
        self.salt = salt
        self.claimName = claimName
        self.claimValue = claimValue
    }

    /// A new Disclosure with a fresh salt of `saltBytes` random bytes (at least 16, §9.3), base64url-encoded.
    public static func make(
        claimName: String?, claimValue: JSONValue, random: any RandomSource, saltBytes: Int = 16
    ) throws(SDJWTError) -> Disclosure {
        Disclosure(salt: try Salt.make(random: random, bytes: saltBytes), claimName: claimName, claimValue: claimValue)
    }

    /// base64url of the hash of the ASCII Disclosure string (§4.2.3).
    public func digest(_ algorithm: SDHashAlgorithm = .sha256) -> String {
        algorithm.base64URLDigest(of: text)
    }

    /// Equality is that of the exact strings.
    public static func == (lhs: Disclosure, rhs: Disclosure) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// The index key of this Disclosure's digest (`DisclosureProcessor`), taken over the text in place.
    func digestKey(_ algorithm: SDHashAlgorithm) -> DigestKey { algorithm.digestKey(of: text) }
}

/// Salts (§4.2.1, §9.3): at least 128 bits from the injected random source, base64url-encoded.
enum Salt {
    static func make(random: any RandomSource, bytes: Int) throws(SDJWTError) -> String {
        guard bytes >= 16 else { throw .saltTooShort(bytes: bytes) }
        let salt = random.bytes(bytes)
        guard salt.count == bytes else { throw .randomSourceFailure }
        return Base64URL.encode(salt)
    }
}
