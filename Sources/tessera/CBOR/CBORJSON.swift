import Foundation
import MDoc
import TesseraCBOR

/// JSON ⇄ CBOR for the CLI's files: claims in, verified elements out.
enum CBORJSON {
    /// A claims value from JSON. Strings shaped `YYYY-MM-DD` become full-date (tag 1004); elements
    /// of the mDL namespace whose type is a byte string (portrait, signature_usual_mark) are read as
    /// base64; integers stay integers.
    static func cbor(fromJSON value: Any, namespace: String? = nil, element: String? = nil) throws -> CBOR {
        switch value {
        case is NSNull: return .null
        case let n as NSNumber:
            if CFGetTypeIDIsBool(n) { return .bool(n.boolValue) }
            if let i = Int64(exactly: n.doubleValue), !"\(n)".contains(".") { return .int(i) }
            return .double(n.doubleValue)
        case let s as String:
            if let namespace, let element, MDL.type(of: element) == .bytes, namespace == MDL.namespace {
                guard let bytes = Data(base64Encoded: s) ?? base64URL(s) else {
                    throw UserFacingError("\(namespace)/\(element): expected base64 for a byte string")
                }
                return .bytes(bytes)
            }
            if (try? FullDate(string: s)) != nil { return .tagged(CBORTag.fullDate, .text(s)) }
            return .text(s)
        case let a as [Any]: return .array(try a.map { try cbor(fromJSON: $0) })
        case let d as [String: Any]:
            var map = CBORMap()
            for key in d.keys.sorted() {
                if let v = d[key] { map.append(key: .text(key), value: try cbor(fromJSON: v)) }
            }
            return .map(map)
        default:
            throw UserFacingError("unsupported JSON value \(type(of: value))")
        }
    }

    /// `{namespace: {element: value}}` from a claims file.
    static func claims(_ data: Data) throws -> [String: [String: CBOR]] {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw UserFacingError("claims: expected a JSON object {namespace: {element: value}}")
        }
        var result: [String: [String: CBOR]] = [:]
        for (namespace, elements) in object {
            guard let elements = elements as? [String: Any] else {
                throw UserFacingError("claims: \(namespace) must map element identifiers to values")
            }
            var converted: [String: CBOR] = [:]
            for (element, value) in elements {
                converted[element] = try cbor(fromJSON: value, namespace: namespace, element: element)
            }
            result[namespace] = converted
        }
        return result
    }

    /// A JSON value for a CBOR item: full-date and tdate as strings, byte strings as base64, other
    /// tags as their content, non-text map keys as diagnostic notation.
    static func json(_ item: CBOR) -> Any {
        switch item {
        case .unsigned(let n): return n
        case .negative: return item.int64Value.map { $0 as Any } ?? item.diagnostic()
        case .bytes(let d): return d.base64EncodedString()
        case .text(let s): return s
        case .array(let a): return a.map(json)
        case .map(let m):
            var d: [String: Any] = [:]
            for e in m { d[e.key.textValue ?? e.key.diagnostic()] = json(e.value) }
            return d
        case .tagged(_, let content): return json(content)
        case .bool(let b): return b
        case .null, .undefined: return NSNull()
        case .simple(let v): return "simple(\(v))"
        case .half(let f), .float(let f): return f.isFinite ? Double(f) as Any : "\(f)"
        case .double(let d): return d.isFinite ? d as Any : "\(d)"
        }
    }

    static func base64URL(_ s: String) -> Data? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        t += String(repeating: "=", count: (4 - t.count % 4) % 4)
        return Data(base64Encoded: t)
    }

    static func serialize(_ object: Any) throws -> String {
        guard JSONSerialization.isValidJSONObject(object),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        else { throw UserFacingError("cannot write the result as JSON") }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Foundation on Linux has no CFBoolean type check; NSNumber made from a JSON true/false reports "c"/"B".
func CFGetTypeIDIsBool(_ n: NSNumber) -> Bool {
    let type = String(cString: n.objCType)
    return type == "c" || type == "B"
}
