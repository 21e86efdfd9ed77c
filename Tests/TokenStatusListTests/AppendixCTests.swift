import Crypto
import Foundation
import TesseraCBOR
import TesseraCore
import TesseraJOSE
import Testing
import TokenStatusList

/// The draft's long vectors (TSL Appendix C): 2^20 entries at 1, 2, 4 and 8 bits, a few entries not VALID. Compared
/// on the decompressed bytes (their length and SHA-256) and on every entry, never on the compressed text, which
/// only classic zlib reproduces.
@Suite("TSL Appendix C: 2^20-entry lists")
struct AppendixCTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let bits: Int
        let entries: Int
        let decompressedBytes: Int
        let sha256: String
        let nonValid: [(index: Int, status: UInt8)]
        let lst: String
        let cborHex: String
        var testDescription: String { "\(bits)-bit" }
    }

    static let vectors: [Vector] = {
        guard let cases = try? Fixtures.cases("appendix-c.json") else { return [] }
        return cases.compactMap { item -> Vector? in
            guard let bits = item["bits"]?.int64Value, let entries = item["entries"]?.int64Value,
                let decompressed = item["decompressed_bytes"]?.int64Value, let sha = item["sha256"]?.stringValue,
                let pairs = item["non_valid"]?.arrayValue, let lst = item["lst"]?.stringValue,
                let cborHex = item["cbor_hex"]?.stringValue
            else { return nil }
            let nonValid = pairs.compactMap { pair -> (index: Int, status: UInt8)? in
                guard let index = pair.arrayValue?.first?.int64Value, let status = pair.arrayValue?.last?.int64Value,
                    let byte = UInt8(exactly: status)
                else { return nil }
                return (Int(index), byte)
            }
            return Vector(
                bits: Int(bits), entries: Int(entries), decompressedBytes: Int(decompressed), sha256: sha,
                nonValid: nonValid, lst: lst, cborHex: cborHex)
        }
    }()

    @Test("the fixture holds the four vectors")
    func fixture() {
        #expect(Self.vectors.map(\.bits) == [1, 2, 4, 8])
        #expect(Self.vectors.map(\.nonValid.count) == [11, 11, 15, 255])
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("JSON lst: decompressed length and SHA-256, every entry", arguments: vectors)
    func json(_ vector: Vector) throws {
        let list = try StatusList(json: ["bits": .integer(Int64(vector.bits)), "lst": .string(vector.lst)])
        #expect(list.count == vector.entries)
        #expect(list.bytes.count == vector.decompressedBytes)
        #expect(Self.hex(Array(SHA256.hash(data: list.bytes))) == vector.sha256)
        let found = list.nonValidStatuses
        #expect(found.map(\.index) == vector.nonValid.map(\.index))
        #expect(found.map(\.status) == vector.nonValid.map(\.status))
        for entry in vector.nonValid { #expect(try list.status(at: entry.index) == entry.status) }
    }

    @Test("CBOR form: the same list, its lst the same bytes as the JSON lst", arguments: vectors)
    func cbor(_ vector: Vector) throws {
        let bytes = try Data(hex: vector.cborHex)
        let list = try StatusList(cborBytes: bytes)
        #expect(try list == StatusList(json: ["bits": .integer(Int64(vector.bits)), "lst": .string(vector.lst)]))
        #expect(try CBOR.decode(bytes)["lst"]?.bytesValue == Base64URL.decode(vector.lst))
    }

    @Test("built from the non-VALID entries alone: the same decompressed bytes, and back through JSON and CBOR", arguments: vectors)
    func rebuilt(_ vector: Vector) throws {
        let built = try StatusList(bits: vector.bits, count: vector.entries, statuses: vector.nonValid)
        #expect(built.bytes.count == vector.decompressedBytes)
        #expect(Self.hex(Array(SHA256.hash(data: built.bytes))) == vector.sha256)
        #expect(try StatusList(json: built.jsonObject()) == built)
        #expect(try StatusList(cbor: built.cbor()) == built)
        if vector.bits == 1 {
            #expect(try StatusList(bits: 1, count: vector.entries, setting: vector.nonValid.map(\.index)) == built)
        }
    }
}
