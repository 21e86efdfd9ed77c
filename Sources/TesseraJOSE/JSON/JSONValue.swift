import Foundation

/// A JSON value (RFC 8259) as the strict parser reads it: numbers keep whether they were written as integers
/// (`integer`, when the value fits in `Int64`) or not (`number`), and objects keep their member order.
///
/// Anything that is signed or hashed must be handled as the bytes received, never as `serialized()` output:
/// `serialized()` is for values built locally (headers and payloads this side signs).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int64`.
    case integer(Int64)
    /// Any other number (fraction, exponent, or an integer outside `Int64`), as the nearest double.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Parses one JSON text (RFC 8259 §2: optional white space, one value, optional white space). Strict: UTF-8
    /// only, no byte order mark, no duplicate member names, no unpaired surrogates, no trailing content.
    public static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits = .default) throws(JSONError) -> JSONValue {
        if let result = bytes.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(JSONError) -> JSONValue in try JSONParser.parse(buffer, limits: limits) }
        }) {
            return try result.get()
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { (buffer) throws(JSONError) -> JSONValue in
            try JSONParser.parse(buffer, limits: limits)
        }
    }

    /// Parses UTF-8 text given as a string.
    public static func parse(_ text: String, limits: JSONLimits = .default) throws(JSONError) -> JSONValue {
        var copy = text
        let result = copy.withUTF8 { buffer in
            Result { () throws(JSONError) -> JSONValue in try JSONParser.parse(buffer, limits: limits) }
        }
        return try result.get()
    }

    /// Compact serialization (no white space), member order kept, minimal escaping: only `"`, `\` and control
    /// characters are escaped; `/` and non-ASCII characters are written as they are. Non-finite doubles, which
    /// JSON cannot represent, are written as `null`.
    public func serialized() -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        JSONSerializer.write(self, into: &out)
        return Data(out)
    }

    /// `serialized()` as a string.
    public var serializedString: String {
        var out: [UInt8] = []
        JSONSerializer.write(self, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The member named `key`, when this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value of an `integer`; nil for anything else, including `number`.
    public var int64Value: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The numeric value of an `integer` or a `number`.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .number(let value): return value
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { serializedString }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A later duplicate name in the literal replaces the earlier value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
