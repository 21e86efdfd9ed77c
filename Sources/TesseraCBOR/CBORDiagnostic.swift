import Foundation

/// Options for diagnostic notation (RFC 8949 §8).
public struct CBORDiagnosticOptions: Sendable {
    /// Byte strings longer than this are shown as their first bytes, an ellipsis and the length.
    public var maxBytes: Int?
    /// Text strings longer than this (in characters) are cut the same way.
    public var maxText: Int?
    /// Arrays and maps with more elements are cut after this many.
    public var maxElements: Int?
    /// Show the content of tag 24 (encoded CBOR data item) as `<< item >>` (RFC 8610 Appendix G.3),
    /// and likewise a byte string whose content is itself a tag 24 item (a COSE payload such as
    /// ISO 18013-5 MobileSecurityObjectBytes).
    public var expandEmbeddedCBOR: Bool
    /// Indent nested arrays and maps with this many spaces; nil prints on one line.
    public var indent: Int?

    public init(
        maxBytes: Int? = nil, maxText: Int? = nil, maxElements: Int? = nil, expandEmbeddedCBOR: Bool = false,
        indent: Int? = nil
    ) {
        self.maxBytes = maxBytes
        self.maxText = maxText
        self.maxElements = maxElements
        self.expandEmbeddedCBOR = expandEmbeddedCBOR
        self.indent = indent
    }

    /// Exactly §8: complete, one line.
    public static let full = CBORDiagnosticOptions()
    /// For people: long strings cut, embedded CBOR expanded, indented.
    public static let abridged = CBORDiagnosticOptions(
        maxBytes: 16, maxText: 64, maxElements: 32, expandEmbeddedCBOR: true, indent: 2)
}

extension CBOR {
    /// Diagnostic notation (RFC 8949 §8) of this item.
    public func diagnostic(_ options: CBORDiagnosticOptions = .full) -> String {
        var out = ""
        DiagnosticPrinter(options: options).print(self, into: &out, level: 0)
        return out
    }
}

struct DiagnosticPrinter {
    let options: CBORDiagnosticOptions

    func print(_ item: CBOR, into out: inout String, level: Int) {
        switch item {
        case .unsigned(let n): out += String(n)
        case .negative(let n):
            // -1 - n may not fit Int64; print it from the magnitude n + 1.
            out += n == UInt64.max ? "-18446744073709551616" : "-" + String(n + 1)
        case .bytes(let d):
            if options.expandEmbeddedCBOR, d.count > 2, d[d.startIndex] == 0xd8, d[d.startIndex + 1] == 0x18,
                let embedded = try? CBOR.decode(d)
            {
                out += "<< "
                print(embedded, into: &out, level: level)
                out += " >>"
            } else {
                printBytes(d, into: &out)
            }
        case .text(let s): printText(s, into: &out)
        case .array(let a):
            printList(open: "[", close: "]", count: a.count, level: level, into: &out) { i, out in
                print(a[i], into: &out, level: level + 1)
            }
        case .map(let m):
            printList(open: "{", close: "}", count: m.count, level: level, into: &out) { i, out in
                print(m.entries[i].key, into: &out, level: level + 1)
                out += ": "
                print(m.entries[i].value, into: &out, level: level + 1)
            }
        case .tagged(let t, let c):
            out += "\(t)("
            if options.expandEmbeddedCBOR, t == CBORTag.encodedCBOR, case .bytes(let inner) = c,
                let embedded = try? CBOR.decode(inner)
            {
                out += "<< "
                print(embedded, into: &out, level: level)
                out += " >>"
            } else {
                print(c, into: &out, level: level)
            }
            out += ")"
        case .simple(let v): out += "simple(\(v))"
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .undefined: out += "undefined"
        case .half(let f), .float(let f): out += Self.formatFloat(Double(f))
        case .double(let d): out += Self.formatFloat(d)
        }
    }

    private func printList(
        open: String, close: String, count: Int, level: Int, into out: inout String,
        element: (Int, inout String) -> Void
    ) {
        out += open
        if count == 0 {
            out += close
            return
        }
        let shown = min(count, options.maxElements ?? count)
        let pad = options.indent.map { "\n" + String(repeating: " ", count: $0 * (level + 1)) }
        for i in 0..<shown {
            if i > 0 { out += "," }
            out += pad ?? (i > 0 ? " " : "")
            element(i, &out)
        }
        if shown < count { out += "," + (pad ?? " ") + "… \(count - shown) more" }
        if let indent = options.indent { out += "\n" + String(repeating: " ", count: indent * level) }
        out += close
    }

    private func printBytes(_ d: Data, into out: inout String) {
        let limit = options.maxBytes ?? d.count
        out += "h'"
        for b in d.prefix(limit) { out += Self.hex[Int(b)] }
        if d.count > limit { out += "…' (\(d.count) bytes)" } else { out += "'" }
    }

    private static let hex: [String] = (0..<256).map { String(format: "%02x", $0) }

    private func printText(_ s: String, into out: inout String) {
        out += "\""
        var shown = 0
        for scalar in s.unicodeScalars {
            if let limit = options.maxText, shown == limit {
                out += "…\" (\(s.unicodeScalars.count) characters)"
                return
            }
            shown += 1
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// §8: floats always show a decimal point or exponent; specials by name.
    static func formatFloat(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        var s = "\(d)"  // shortest round-trip representation
        if let e = s.firstIndex(of: "e") {
            var mantissa = String(s[..<e])
            var exponent = String(s[s.index(after: e)...])
            if !mantissa.contains(".") { mantissa += ".0" }
            // "e-08" → "e-8", keep the sign as §8 examples do ("1.0e+300").
            let sign = exponent.first == "-" ? "-" : "+"
            exponent = String(exponent.drop(while: { $0 == "-" || $0 == "+" || $0 == "0" }))
            s = mantissa + "e" + sign + (exponent.isEmpty ? "0" : exponent)
        } else if !s.contains(".") {
            s += ".0"
        }
        return s
    }
}
