import Foundation
import TesseraJOSE
import TesseraCore

/// A strict reader of one JSON object: every member must be named in `allowed`, every read checks the JSON type,
/// the length limits of `VaultLimits` and (for numbers) the range. An optional member is absent, never `null`.
/// Each failure is `.malformed` naming the object and the member.
struct VaultFields {
    let object: JSONObject
    let context: String

    init(_ object: JSONObject, _ context: String, allowed: Set<String>) throws(VaultProtocolError) {
        for key in object.keys where !allowed.contains(key) {
            throw .malformed("\(context): unknown field \"\(VaultFields.shown(key))\"")
        }
        self.object = object
        self.context = context
    }

    /// Parses `data` as one JSON object within `limit` bytes (and `VaultLimits.json` depth).
    static func parse(_ data: Data, limit: Int, _ context: String) throws(VaultProtocolError) -> JSONObject {
        guard data.count <= limit else { throw .tooLarge(limit: limit) }
        let value: JSONValue
        do {
            value = try JSONValue.parse(data, limits: JSONLimits(maxBytes: limit, maxDepth: VaultLimits.json.maxDepth))
        } catch {
            throw .malformed("\(context) is not JSON (\(error))")
        }
        guard let object = value.objectValue else { throw .malformed("\(context) is not a JSON object") }
        return object
    }

    /// A member name from the input, cut short for an error message.
    static func shown(_ name: String) -> String {
        name.utf8.count <= 64 ? name : String(decoding: name.utf8.prefix(64), as: UTF8.self) + "…"
    }

    func has(_ name: String) -> Bool { object.contains(name) }

    private func fail(_ name: String, _ rule: String) -> VaultProtocolError { .malformed("\(context).\(name) \(rule)") }

    private func value(_ name: String) throws(VaultProtocolError) -> JSONValue {
        guard let value = object[name] else { throw fail(name, "is missing") }
        return value
    }

    // MARK: Strings

    /// A string of at most `max` UTF-8 bytes; empty only when `allowEmpty`.
    func string(_ name: String, max: Int, allowEmpty: Bool = false) throws(VaultProtocolError) -> String {
        guard let text = try value(name).stringValue else { throw fail(name, "must be a string") }
        guard allowEmpty || !text.isEmpty else { throw fail(name, "must not be empty") }
        guard text.utf8.count <= max else { throw fail(name, "is longer than \(max) bytes") }
        return text
    }

    func optionalString(_ name: String, max: Int, allowEmpty: Bool = false) throws(VaultProtocolError) -> String? {
        has(name) ? try string(name, max: max, allowEmpty: allowEmpty) : nil
    }

    /// A non-empty name of at most `VaultLimits.maxKeyBytes` bytes (record keys, ids, labels).
    func key(_ name: String) throws(VaultProtocolError) -> String { try string(name, max: VaultLimits.maxKeyBytes) }
    func optionalKey(_ name: String) throws(VaultProtocolError) -> String? { has(name) ? try key(name) : nil }

    /// A value of at most `VaultLimits.maxValueBytes` bytes, possibly empty.
    func text(_ name: String) throws(VaultProtocolError) -> String {
        try string(name, max: VaultLimits.maxValueBytes, allowEmpty: true)
    }

    /// One NATS subject token (see `VaultToken`).
    func token(_ name: String) throws(VaultProtocolError) -> String {
        let text = try string(name, max: VaultLimits.maxTokenBytes)
        guard VaultToken.isToken(text) else { throw fail(name, "must be letters, digits, '-' or '_' only") }
        return text
    }

    /// A user guid as the subjects use it: 32 lowercase hex characters.
    func guid(_ name: String) throws(VaultProtocolError) -> String {
        let text = try string(name, max: 32)
        guard VaultToken.isGUID(text) else { throw fail(name, "must be 32 lowercase hex characters") }
        return text
    }

    // MARK: Numbers and booleans

    func integer(_ name: String, in range: ClosedRange<Int64> = 0...VaultLimits.maxInteger) throws(VaultProtocolError) -> Int64 {
        guard let number = try value(name).int64Value else { throw fail(name, "must be an integer") }
        guard range.contains(number) else { throw fail(name, "must lie in \(range.lowerBound)…\(range.upperBound)") }
        return number
    }

    func optionalInteger(_ name: String, in range: ClosedRange<Int64> = 0...VaultLimits.maxInteger) throws(VaultProtocolError) -> Int64? {
        has(name) ? try integer(name, in: range) : nil
    }

    func bool(_ name: String) throws(VaultProtocolError) -> Bool {
        guard let flag = try value(name).boolValue else { throw fail(name, "must be true or false") }
        return flag
    }

    // MARK: Bytes

    /// Strict base64url (RFC 4648 §5, no padding) of exactly `count` bytes.
    func bytes(_ name: String, count: Int) throws(VaultProtocolError) -> Data {
        let text = try string(name, max: (count * 4 + 2) / 3)
        guard let bytes = try? Base64URL.decode(text), bytes.count == count else {
            throw fail(name, "must be base64url of \(count) bytes")
        }
        return bytes
    }

    /// Strict base64url of `minimum…maximum` bytes.
    func bytes(_ name: String, minimum: Int, maximum: Int) throws(VaultProtocolError) -> Data {
        let text = try string(name, max: (maximum * 4 + 2) / 3, allowEmpty: minimum == 0)
        guard let bytes = try? Base64URL.decode(text), bytes.count >= minimum, bytes.count <= maximum else {
            throw fail(name, "must be base64url of \(minimum)…\(maximum) bytes")
        }
        return bytes
    }

    /// An X25519 public key: base64url of 32 bytes in canonical form (see `X25519Key.isCanonical`).
    func x25519Key(_ name: String) throws(VaultProtocolError) -> Data {
        let key = try bytes(name, count: 32)
        guard X25519Key.isCanonical(key) else { throw fail(name, "is not a canonical X25519 public key") }
        return key
    }

    // MARK: Structures

    func object(_ name: String) throws(VaultProtocolError) -> JSONObject {
        guard let object = try value(name).objectValue else { throw fail(name, "must be an object") }
        return object
    }

    func array(_ name: String) throws(VaultProtocolError) -> [JSONValue] {
        guard let array = try value(name).arrayValue else { throw fail(name, "must be an array") }
        guard array.count <= VaultLimits.maxListCount else { throw fail(name, "has more than \(VaultLimits.maxListCount) entries") }
        return array
    }

    /// A list of objects, each decoded by `make`.
    func list<T>(_ name: String, _ make: (JSONObject) throws(VaultProtocolError) -> T) throws(VaultProtocolError) -> [T] {
        var out: [T] = []
        for (index, entry) in try array(name).enumerated() {
            guard let object = entry.objectValue else { throw fail("\(name)[\(index)]", "must be an object") }
            out.append(try make(object))
        }
        return out
    }

    /// A list of distinct non-empty names (≤ `VaultLimits.maxKeyBytes` each).
    func keyList(_ name: String) throws(VaultProtocolError) -> [String] {
        var out: [String] = []
        var seen = Set<String>()
        for (index, entry) in try array(name).enumerated() {
            guard let text = entry.stringValue, !text.isEmpty, text.utf8.count <= VaultLimits.maxKeyBytes else {
                throw fail("\(name)[\(index)]", "must be a non-empty string of at most \(VaultLimits.maxKeyBytes) bytes")
            }
            guard seen.insert(text).inserted else { throw fail(name, "repeats an entry") }
            out.append(text)
        }
        return out
    }

    func optionalKeyList(_ name: String) throws(VaultProtocolError) -> [String]? { has(name) ? try keyList(name) : nil }

    /// An object whose members are all strings: names non-empty ≤ 256 bytes, values ≤ 64 KiB, ≤ 1000 members.
    func stringMap(_ name: String) throws(VaultProtocolError) -> [String: String] {
        let members = try object(name)
        guard members.count <= VaultLimits.maxListCount else { throw fail(name, "has more than \(VaultLimits.maxListCount) members") }
        var out: [String: String] = [:]
        for (key, value) in members {
            guard !key.isEmpty, key.utf8.count <= VaultLimits.maxKeyBytes else {
                throw fail(name, "has a member name that is empty or longer than \(VaultLimits.maxKeyBytes) bytes")
            }
            guard let text = value.stringValue, text.utf8.count <= VaultLimits.maxValueBytes else {
                throw fail("\(name).\(VaultFields.shown(key))", "must be a string of at most \(VaultLimits.maxValueBytes) bytes")
            }
            out[key] = text
        }
        return out
    }

    func optionalStringMap(_ name: String) throws(VaultProtocolError) -> [String: String]? { has(name) ? try stringMap(name) : nil }
}

/// Building the JSON of the encoders.
enum VaultJSON {
    static func string(_ text: String) -> JSONValue { .string(text) }
    static func integer(_ number: Int64) -> JSONValue { .integer(number) }
    static func bytes(_ data: Data) -> JSONValue { .string(Base64URL.encode(data)) }
    /// Members sorted by name, so that the same map always encodes to the same bytes.
    static func stringMap(_ map: [String: String]) -> JSONValue {
        var object = JSONObject()
        for key in map.keys.sorted() { object[key] = .string(map[key] ?? "") }
        return .object(object)
    }
    static func keyList(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }
}

/// Ids that appear in NATS subjects and in the envelope AAD.
public enum VaultToken {
    /// 1…`VaultLimits.maxTokenBytes` bytes of `A–Z a–z 0–9 - _`: one NATS subject token (no `.`, `*`, `>` or white
    /// space), and never `|`, the AAD's separator, so every AAD has one reading.
    public static func isToken(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= VaultLimits.maxTokenBytes else { return false }
        return utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// A handler or notification type: tokens joined by `.` (`secrets.datastore.add`), at most 256 bytes.
    public static func isType(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= VaultLimits.maxKeyBytes else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { isToken(String($0)) }
    }

    /// 32 lowercase hex characters (a user_guid without dashes).
    public static func isGUID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

/// X25519 public keys as the vault accepts them.
public enum X25519Key {
    /// RFC 7748 §5: X25519 ignores the top bit of a u-coordinate and reduces values ≥ 2²⁵⁵ − 19, so one key has
    /// several encodings. Keys are compared byte for byte (the bootstrap echo), so only the canonical encoding —
    /// what every implementation sends — is accepted.
    public static func isCanonical(_ u: Data) -> Bool {
        let bytes = [UInt8](u)
        guard bytes.count == 32, bytes[31] & 0x80 == 0 else { return false }
        // Below p = 2²⁵⁵ − 19 (little-endian: ed ff … ff 7f).
        return bytes[31] < 0x7f || bytes[1..<31].contains { $0 != 0xff } || bytes[0] < 0xed
    }
}
