import Foundation
import Testing

@testable import TesseraJOSE

@Suite("JSON parser (RFC 8259)")
struct JSONParserTests {
    @Test("scalars, arrays and objects parse to the right values")
    func values() throws {
        let value = try JSONValue.parse(
            Data(#" { "a" : [1, -2, 3.5, 1e3, true, false, null, "x"], "b": {"c": ""}, "d": -0, "e": 9223372036854775807 } "#.utf8))
        #expect(value["a"] == .array([.integer(1), .integer(-2), .number(3.5), .number(1000), .bool(true), .bool(false), .null, .string("x")]))
        #expect(value["b"]?["c"] == .string(""))
        #expect(value["d"] == .integer(0))
        #expect(value["e"] == .integer(Int64.max))
        #expect(value.objectValue?.keys == ["a", "b", "d", "e"])
    }

    @Test("integers beyond Int64 become doubles; Int64.min stays an integer")
    func bigIntegers() throws {
        #expect(try JSONValue.parse(Data("9223372036854775808".utf8)) == .number(9_223_372_036_854_775_808))
        #expect(try JSONValue.parse(Data("-9223372036854775808".utf8)) == .integer(Int64.min))
    }

    @Test("escapes decode, including surrogate pairs, and raw UTF-8 is kept")
    func escapes() throws {
        let value = try JSONValue.parse(Data(#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 Möbius""#.utf8))
        #expect(value == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té😀 Möbius"))
    }

    @Test("member order is kept and equality ignores it")
    func memberOrder() throws {
        let a = try JSONValue.parse(Data(#"{"z":1,"a":2}"#.utf8))
        let b = try JSONValue.parse(Data(#"{"a":2,"z":1}"#.utf8))
        #expect(a.objectValue?.keys == ["z", "a"])
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.serializedString == #"{"z":1,"a":2}"#)
    }

    @Test("serialization is compact with minimal escaping and round-trips")
    func serialization() throws {
        var object = JSONObject()
        object["s"] = "quote\" back\\ slash/ ctl\u{01} nl\n é"
        object["n"] = .number(0.5)
        object["i"] = .integer(-7)
        object["l"] = [true, nil]
        let text = JSONValue.object(object).serializedString
        #expect(text == #"{"s":"quote\" back\\ slash/ ctl\u0001 nl\n é","n":0.5,"i":-7,"l":[true,null]}"#)
        #expect(try JSONValue.parse(Data(text.utf8)) == .object(object))
    }

    @Test("large objects (indexed) keep lookups, order and duplicate detection")
    func largeObjects() throws {
        let members = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let value = try JSONValue.parse(Data("{\(members)}".utf8))
        #expect(value["k39"] == .integer(39))
        #expect(value.objectValue?.keys.first == "k0")
        var object = try #require(value.objectValue)
        object["k5"] = nil
        #expect(object.count == 39)
        #expect(object["k6"] == .integer(6))
        object["k5"] = "back"
        #expect(object.keys.last == "k5")
        let duplicate = "{\(members),\"k17\":0}"
        #expect(jsonError { _ = try JSONValue.parse(Data(duplicate.utf8)) } == .duplicateMemberName("k17", offset: duplicate.utf8.count - 8))
    }

    @Test("JSONObject(_:) rejects a repeated name; the subscript replaces in place")
    func objectBuilding() throws {
        #expect(jsonError { _ = try JSONObject([("a", 1), ("a", 2)]) } == .duplicateMemberName("a", offset: nil))
        var object = try JSONObject([("a", 1), ("b", 2)])
        object["a"] = 3
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .integer(3))
    }

    // MARK: Each rejection, with its error and offset

    static let rejections: [(String, JSONError)] = [
        ("", .unexpectedEnd(offset: 0)),
        ("   ", .unexpectedEnd(offset: 3)),
        ("[1,", .unexpectedEnd(offset: 3)),
        (#"{"a":1"#, .unexpectedEnd(offset: 6)),
        ("\"abc", .unexpectedEnd(offset: 4)),
        ("[1 2]", .unexpectedByte(offset: 3, byte: UInt8(ascii: "2"))),
        ("[1,]", .unexpectedByte(offset: 3, byte: UInt8(ascii: "]"))),
        (#"{"a":1,}"#, .unexpectedByte(offset: 7, byte: UInt8(ascii: "}"))),
        ("{a:1}", .unexpectedByte(offset: 1, byte: UInt8(ascii: "a"))),
        ("'x'", .unexpectedByte(offset: 0, byte: UInt8(ascii: "'"))),
        ("tru", .unexpectedEnd(offset: 3)),
        ("nul1", .unexpectedByte(offset: 3, byte: UInt8(ascii: "1"))),
        ("\u{FEFF}{}", .unexpectedByte(offset: 0, byte: 0xEF)),
        ("{} {}", .trailingContent(offset: 3)),
        ("1 2", .trailingContent(offset: 2)),
        ("\"a\u{01}\"", .controlCharacterInString(offset: 2)),
        ("\"a\\x\"", .invalidEscape(offset: 2)),
        ("\"\\u12G4\"", .invalidUnicodeEscape(offset: 1)),
        ("\"\\ud800\"", .invalidUnicodeEscape(offset: 1)),
        ("\"\\udc00\"", .invalidUnicodeEscape(offset: 1)),
        ("\"\\ud800\\u0041\"", .invalidUnicodeEscape(offset: 1)),
        ("01", .invalidNumber(offset: 0)),
        ("-", .invalidNumber(offset: 0)),
        ("1.", .invalidNumber(offset: 0)),
        (".5", .unexpectedByte(offset: 0, byte: UInt8(ascii: "."))),
        ("1e", .invalidNumber(offset: 0)),
        ("+1", .unexpectedByte(offset: 0, byte: UInt8(ascii: "+"))),
        ("1e400", .numberOutOfRange(offset: 0)),
        (#"{"a":1,"a":2}"#, .duplicateMemberName("a", offset: 7)),
        (#"{"a":1,"\u0061":2}"#, .duplicateMemberName("a", offset: 7)),
    ]

    @Test("each malformed text is rejected with its own error and offset", arguments: rejections.indices)
    func rejection(_ index: Int) {
        let (text, expected) = Self.rejections[index]
        #expect(jsonError { _ = try JSONValue.parse(Data(text.utf8)) } == expected, "input: \(text.debugDescription)")
    }

    @Test("invalid UTF-8 is rejected at the offending byte", arguments: [
        ([0x22, 0xC3, 0x28, 0x22], 1),  // bad continuation
        ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // encoded surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
        ([0x22, 0x61, 0xE2, 0x82], 2),  // truncated
        ([0x22, 0x5C, 0x6E, 0xFF, 0x22], 3),  // after an escape (slow path)
    ] as [([UInt8], Int)])
    func invalidUTF8(_ bytes: [UInt8], offset: Int) {
        #expect(jsonError { _ = try JSONValue.parse(bytes) } == .invalidUTF8(offset: offset))
    }

    @Test("size and depth limits reject, and only reject")
    func limits() throws {
        let limits = JSONLimits(maxBytes: 10, maxDepth: 3)
        #expect(jsonError { _ = try JSONValue.parse(Data("[1,2,3,4,5,6]".utf8), limits: limits) } == .tooLarge(size: 13, limit: 10))
        #expect(try JSONValue.parse(Data("[[[1]]]".utf8), limits: limits) == [[[1]]])
        #expect(jsonError { _ = try JSONValue.parse(Data("[[[[1]]]]".utf8), limits: limits) } == .depthLimitExceeded(offset: 3, limit: 3))
        let deep = String(repeating: "[", count: 100_000)
        #expect(jsonError { _ = try JSONValue.parse(Data(deep.utf8)) } == .depthLimitExceeded(offset: 64, limit: 64))
    }

    @Test("non-contiguous collections and strings parse the same")
    func inputKinds() throws {
        let text = #"{"a":[1,"é"]}"#
        let fromData = try JSONValue.parse(Data(text.utf8))
        #expect(try JSONValue.parse(text) == fromData)
        #expect(try JSONValue.parse(text.utf8.reversed().reversed()) == fromData)
    }
}
