import Foundation
import Testing
import TesseraCBOR

/// RFC 8949 Appendix A, every example (fixture copied from shared/vectors/cbor, source noted inside).
@Suite struct AppendixATests {
    struct Case: CustomTestStringConvertible, Sendable {
        let id: Int
        let diagnostic: String
        let hex: String
        let type: String
        let deterministicHex: String
        let isDeterministic: Bool
        let integerDecimal: String?
        let floatValue: String?
        let decodedJSON: String?
        var testDescription: String { "#\(id) \(diagnostic)" }
    }

    static let cases: [Case] = {
        guard let file = try? Fixtures.json("rfc8949-appendix-a"), let raw = file["cases"] as? [[String: Any]] else {
            return []
        }
        return raw.compactMap { c in
            guard let id = c["id"] as? Int, let diag = c["diagnostic"] as? String, let hex = c["hex"] as? String,
                let type = c["type"] as? String, let det = c["deterministic_hex"] as? String
            else { return nil }
            var decodedJSON: String? = nil
            if let d = c["decoded"], !(d is NSNull),
                let data = try? JSONSerialization.data(withJSONObject: d, options: [.sortedKeys, .fragmentsAllowed])
            {
                decodedJSON = String(decoding: data, as: UTF8.self)
            }
            return Case(
                id: id, diagnostic: diag, hex: hex, type: type, deterministicHex: det,
                isDeterministic: (c["is_deterministic_encoding"] as? Bool) ?? (hex == det),
                integerDecimal: c["integer_decimal"] as? String, floatValue: c["float_value"] as? String,
                decodedJSON: decodedJSON)
        }
    }()

    @Test func allEightyOneCasesLoaded() {
        #expect(Self.cases.count == 81)
        #expect(Self.cases.filter { !$0.isDeterministic }.count == 17)
    }

    @Test(arguments: cases) func decodesToTheExpectedValue(_ c: Case) throws {
        let value = try cbor(c.hex)
        if let decimal = c.integerDecimal ?? (c.type.hasPrefix("uint") || c.type.hasPrefix("nint") ? c.diagnostic : nil) {
            #expect(CBORBignum(value)?.decimalString == decimal)
        } else if let f = c.floatValue {
            let expected = Self.parseFloat(f)
            let actual = try #require(value.doubleValue)
            if expected.isNaN {
                #expect(actual.isNaN)
            } else {
                #expect(actual == expected && actual.sign == expected.sign)
            }
        } else if let json = c.decodedJSON, let actual = Self.json(value) {
            #expect(actual == json)
        }
        // Indefinite-length items decode to the same value as their definite form.
        #expect(try cbor(c.hex).encodedBytes() == cbor(c.deterministicHex).encodedBytes())
        // Diagnostic notation matches the RFC for definite-length, non-float items.
        if !c.type.contains("indefinite") && c.floatValue == nil && !c.type.hasPrefix("tag(2)")
            && !c.type.hasPrefix("tag(3)") && !c.hex.contains("9f") && !c.hex.contains("bf")
        {
            #expect(value.diagnostic() == Self.normalizedDiagnostic(c.diagnostic))
        }
    }

    @Test(arguments: cases) func encodesDeterministically(_ c: Case) throws {
        let value = try cbor(c.hex)
        #expect(Hex.encode(value.encodedBytes(options: .deterministic)) == c.deterministicHex)
        if c.isDeterministic {
            // Canonical examples re-encode to the same bytes in every mode and pass the deterministic decoder.
            #expect(Hex.encode(value.encodedBytes(options: .preserving)) == c.hex)
            _ = try cbor(c.hex, .deterministic)
        } else {
            #expect(caught { _ = try cbor(c.hex, .deterministic) } != nil)
        }
    }

    @Test func simple24InTwoByteFormIsRejected() {
        #expect(caught { _ = try cbor("f818") } == .invalidSimpleValue(24, offset: 0))
    }

    @Test func floatsPrintAsRFC8949Section8() throws {
        #expect(try cbor("fb3ff199999999999a").diagnostic() == "1.1")
        #expect(try cbor("f97bff").diagnostic() == "65504.0")
        #expect(try cbor("fb7e37e43c8800759c").diagnostic() == "1.0e+300")
        #expect(try cbor("f90001").diagnostic() == "5.960464477539063e-8")
        #expect(try cbor("f98000").diagnostic() == "-0.0")
        #expect(try cbor("f97c00").diagnostic() == "Infinity")
        #expect(try cbor("fbfff0000000000000").diagnostic() == "-Infinity")
        #expect(try cbor("fa7fc00000").diagnostic() == "NaN")
    }

    @Test func bignumsPrintAndConvertExactly() throws {
        #expect(try cbor("c249010000000000000000").diagnostic() == "2(h'010000000000000000')")
        #expect(CBORBignum(try cbor("3bffffffffffffffff"))?.decimalString == "-18446744073709551616")
        #expect(try cbor("3bffffffffffffffff").diagnostic() == "-18446744073709551616")
        // Preferred serialization folds a small bignum back into a plain integer (§3.4.3).
        #expect(CBORBignum(isNegative: false, magnitude: [0, 0, 1, 0]).cbor == .unsigned(256))
    }

    /// The RFC writes non-ASCII text with \u escapes; we print the characters themselves.
    static func normalizedDiagnostic(_ s: String) -> String {
        switch s {
        case "\"\\u00fc\"": return "\"ü\""
        case "\"\\u6c34\"": return "\"水\""
        case "\"\\ud800\\udd51\"": return "\"𐅑\""
        default: return s
        }
    }

    static func parseFloat(_ s: String) -> Double {
        switch s {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "NaN": return .nan
        default: return Double(s) ?? .nan
        }
    }

    /// The value as compact sorted-key JSON, where JSON can hold it.
    static func json(_ value: CBOR) -> String? {
        func object(_ v: CBOR) -> Any? {
            switch v {
            case .unsigned, .negative: return v.int64Value
            case .text(let s): return s
            case .bool(let b): return b
            case .null: return NSNull()
            case .array(let a):
                let items = a.compactMap(object)
                return items.count == a.count ? items : nil
            case .map(let m):
                var d: [String: Any] = [:]
                for e in m {
                    guard let k = e.key.textValue, let o = object(e.value) else { return nil }
                    d[k] = o
                }
                return d
            default: return nil
            }
        }
        guard let o = object(value),
            let data = try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .fragmentsAllowed])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
