import Foundation
import Testing
import TesseraCore

@testable import TesseraJOSE

/// The parser's word-at-a-time string scan, the container stacks, the index handed to large objects, and JSON
/// parsed straight from base64url (issue 14): same values and same errors as the byte-by-byte path.
@Suite("JSON fast paths")
struct JSONFastPathTests {
    /// Strings long enough for the eight-byte scan, with the byte that stops it at every position of a word.
    @Test("a quote, backslash, control or non-ASCII byte stops the word scan at any offset", arguments: 0..<17)
    func wordScan(_ prefix: Int) throws {
        let head = String(repeating: "a", count: prefix)
        let tail = String(repeating: "z", count: 11)
        #expect(try JSONValue.parse(Data("\"\(head)\(tail)\"".utf8)) == .string(head + tail))
        #expect(try JSONValue.parse(Data("\"\(head)\\n\(tail)\"".utf8)) == .string(head + "\n" + tail))
        #expect(try JSONValue.parse(Data("\"\(head)é\(tail)\"".utf8)) == .string(head + "é" + tail))
        #expect(try JSONValue.parse(Data("[\"\(head)\",\"\(tail)\"]".utf8)) == .array([.string(head), .string(tail)]))
        var control = Array("\"\(head)".utf8)
        control.append(0x09)
        control += Array("\(tail)\"".utf8)
        #expect(jsonError { _ = try JSONValue.parse(control) } == .controlCharacterInString(offset: prefix + 1))
        var invalid = Array("\"\(head)".utf8)
        invalid.append(0xFF)
        invalid += Array("\(tail)\"".utf8)
        #expect(jsonError { _ = try JSONValue.parse(invalid) } == .invalidUTF8(offset: prefix + 1))
        #expect(jsonError { _ = try JSONValue.parse(Data("\"\(head)\(tail)".utf8)) } == .unexpectedEnd(offset: prefix + 12))
    }

    @Test("nested arrays and objects come out whole and in order; a duplicate deep inside is found")
    func nestedContainers() throws {
        let text = #"{"a":[1,[2,3],{"b":[4],"c":{}}],"d":[],"e":{"f":[5,6,7]},"g":"h"}"#
        let value = try JSONValue.parse(Data(text.utf8))
        #expect(value.serializedString == text)
        #expect(value["a"]?.arrayValue?.count == 3)
        #expect(value["e"]?["f"] == .array([5, 6, 7]))
        #expect(jsonError { _ = try JSONValue.parse(Data(#"{"a":[1,2,{"b":3,"b":4}]}"#.utf8)) } == .duplicateMemberName("b", offset: 17))
    }

    @Test("large objects: every member found by name, duplicates found past the index threshold")
    func largeObjects() throws {
        for count in [JSONObject.indexThreshold, JSONObject.indexThreshold + 1, 40] {
            let members = (0..<count).map { "\"m\($0)\":\($0)" }.joined(separator: ",")
            let object = try #require(try JSONValue.parse(Data("{\(members)}".utf8)).objectValue)
            #expect(object.count == count)
            for index in 0..<count { #expect(object["m\(index)"] == .integer(Int64(index))) }
            #expect(object["m\(count)"] == nil)
            let duplicate = "{\(members),\"m0\":0}"
            #expect(jsonError { _ = try JSONValue.parse(Data(duplicate.utf8)) } == .duplicateMemberName("m0", offset: duplicate.utf8.count - 7))
        }
    }

    @Test("reserveCapacity keeps lookups, replacement and removal right")
    func reservedObject() throws {
        var object = JSONObject()
        object["first"] = 1
        object.reserveCapacity(30)
        for index in 0..<20 { object["k\(index)"] = .integer(Int64(index)) }
        #expect(object.count == 21)
        #expect(object["first"] == .integer(1))
        #expect(object["k19"] == .integer(19))
        object["k3"] = nil
        object["first"] = "replaced"
        #expect(object["k3"] == nil)
        #expect(object["k4"] == .integer(4))
        #expect(object.keys.first == "first")
        #expect(object["first"] == .string("replaced"))
    }

    @Test("appendIfAbsent appends a new name once, keeps an existing member and does not build its value", arguments: [4, 30])
    func appendIfAbsent(_ size: Int) throws {
        var object = JSONObject()
        object.reserveCapacity(size)  // 30: past the index threshold, so the indexed path is taken
        for index in 0..<size { #expect(object.appendIfAbsent("k\(index)") { .integer(Int64(index)) }) }
        var built = 0
        #expect(!object.appendIfAbsent("k2") {
            built += 1
            return "other"
        })
        #expect(built == 0)
        #expect(object.count == size && object["k2"] == .integer(2))
        #expect(object.appendIfAbsent("new") { "added" })
        #expect(object.keys.last == "new" && object["new"] == "added" && object["k\(size - 1)"] == .integer(Int64(size - 1)))
        object["k0"] = nil
        #expect(object.appendIfAbsent("k0") { 0 } && object.keys.last == "k0" && object["new"] == "added")
    }

    @Test("A short array keeps its first three elements and counts the rest; JSON that is not an array is nil")
    func shortArray() throws {
        func parse(_ json: String) throws -> JSONShortArray? {
            try JSONValue.parseShortArray(base64URL: Base64URL.encode(Array(json.utf8))).get()
        }
        let five = try #require(try parse(#" ["a", {"b":[1]}, null, 4, [5] ] "#))
        #expect(five.count == 5)
        #expect(five[0] == "a" && five[1] == ["b": [1]] && five[2] == .null && five[3] == nil && five[-1] == nil)
        let empty = try #require(try parse("[]"))
        #expect(empty.count == 0 && empty[0] == nil)
        #expect(try parse(#"{"a":1}"#) == nil && parse("7") == nil)
        #expect(throws: JSONError.unexpectedEnd(offset: 4)) { _ = try parse("[1, ") }
        #expect(throws: JSONError.trailingContent(offset: 4)) { _ = try parse("[1] 2") }
        #expect(throws: JSONError.trailingContent(offset: 3)) { _ = try parse("{} 2") }
        #expect(throws: JOSEError.invalidBase64URL) { _ = try JSONValue.parseShortArray(base64URL: "a") }
    }

    @Test("JSON from base64url: the value, a bad encoding, and bad JSON in a good encoding")
    func fromBase64URL() throws {
        let encoded = Base64URL.encode(Array(#"["salt","name",{"x":1}]"#.utf8))
        #expect(try JSONValue.parse(base64URL: encoded).get() == .array(["salt", "name", ["x": 1]]))
        #expect(throws: JOSEError.invalidBase64URL) { _ = try JSONValue.parse(base64URL: encoded + "=") }
        #expect(throws: JOSEError.invalidBase64URL) { _ = try JSONValue.parse(base64URL: "a") }
        let notJSON = try JSONValue.parse(base64URL: Base64URL.encode(Array("[1,".utf8)))
        #expect(throws: JSONError.unexpectedEnd(offset: 3)) { _ = try notJSON.get() }
        let tooLarge = try JSONValue.parse(base64URL: encoded, limits: JSONLimits(maxBytes: 4, maxDepth: 8))
        #expect(throws: JSONError.tooLarge(size: 23, limit: 4)) { _ = try tooLarge.get() }
        let empty = try JSONValue.parse(base64URL: "")
        #expect(throws: JSONError.unexpectedEnd(offset: 0)) { _ = try empty.get() }
    }
}
