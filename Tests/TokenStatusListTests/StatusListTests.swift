import Foundation
import TesseraCBOR
import TesseraCore
import TesseraJOSE
import Testing
import TokenStatusList

@Suite("Status List (TSL §4)")
struct StatusListTests {
    static let oneBit: [UInt8] = [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]

    @Test("the draft's 1-bit example (§4.2, §4.3): lst eNrbuRgAAhcBXQ is b9 a3, LSB first, in JSON and CBOR")
    func oneBitExample() throws {
        let list = try StatusList(json: ["bits": 1, "lst": "eNrbuRgAAhcBXQ"])
        #expect(list.bytes == [0xB9, 0xA3])
        #expect(list.count == 16)
        #expect(try (0..<16).map { try list.status(at: $0) } == Self.oneBit)
        let cbor = try StatusList(cborBytes: Data(hex: "a2646269747301636c73744a78dadbb918000217015d"))
        #expect(cbor == list)
        // Built entry by entry and in one pass from its INVALID indices: the same bytes.
        var built = try StatusList(bits: 1, count: 16)
        for (index, status) in Self.oneBit.enumerated() { try built.setStatus(status, at: index) }
        #expect(built == list)
        let revoked = Self.oneBit.indices.filter { Self.oneBit[$0] == 1 }
        #expect(try StatusList(bits: 1, count: 16, setting: revoked) == list)
        // What is written decompresses to the same bytes (whatever zlib build compressed it).
        let json = try built.jsonObject()
        #expect(json.keys == ["bits", "lst"])
        #expect(try StatusList(json: json) == list)
        #expect(try StatusList(cbor: built.cbor()) == list)
    }

    @Test("the draft's lst texts come out byte for byte with classic zlib, and round trip with any (level 9, header 78 DA)")
    func exactCompression() throws {
        let list = try StatusList(bits: 1, bytes: [0xB9, 0xA3])
        #expect(try list.compressedBytes().prefix(2) == [0x78, 0xDA])
        let json = try list.jsonObject()
        let cbor = try list.cbor().encoded(options: .preserving)
        let draftCBOR = try Data(hex: "a2646269747301636c73744a78dadbb918000217015d")
        // Any zlib must give back the list; only classic zlib (this project's Debian and Apple targets) the very bytes.
        #expect(try StatusList(json: json) == list)
        #expect(try StatusList(cborBytes: cbor) == list)
        if Zlib.isClassic {
            #expect(json == ["bits": 1, "lst": "eNrbuRgAAhcBXQ"])
            #expect(cbor == draftCBOR)
        }
    }

    @Test("the draft's 2-bit example: lst eNo76fITAAPfAgc is c9 44 f9, in JSON and CBOR")
    func twoBitExample() throws {
        let list = try StatusList(json: ["bits": 2, "lst": "eNo76fITAAPfAgc"])
        #expect(list.bytes == [0xC9, 0x44, 0xF9])
        #expect(try (0..<12).map { try list.status(at: $0) } == [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3])
        #expect(try StatusList(cborBytes: Data(hex: "a2646269747302636c73744b78da3be9f2130003df0207")) == list)
        let pairs = [(0, 1), (1, 2), (3, 3), (5, 1), (7, 1), (8, 1), (9, 2), (10, 3), (11, 3)].map { (index: $0.0, status: UInt8($0.1)) }
        #expect(try StatusList(bits: 2, count: 12, statuses: pairs) == list)
        #expect(list.nonValidStatuses.map(\.index) == pairs.map(\.index))
        #expect(list.nonValidStatuses.map(\.status) == pairs.map(\.status))
    }

    @Test("set and read back at every width; JSON and CBOR round trips", arguments: [1, 2, 4, 8])
    func widths(_ bits: Int) throws {
        var list = try StatusList(bits: bits, count: 1000)
        let max = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        for index in stride(from: 0, to: 1000, by: 7) { try list.setStatus(UInt8(index % (Int(max) + 1)), at: index) }
        let decoded = try StatusList(json: try list.jsonObject())
        #expect(decoded == list)
        #expect(try StatusList(cbor: list.cbor()) == list)
        for index in 0..<1000 {
            #expect(try decoded.status(at: index) == (index % 7 == 0 ? UInt8(index % (Int(max) + 1)) : 0))
        }
        #expect(statusListError { try list.setStatus(max &+ 1, at: 0) } == (bits == 8 ? nil : .statusTooWide(status: max &+ 1, bits: bits)))
        #expect(statusListError { _ = try list.status(at: list.count) } == .indexOutOfRange(index: list.count, count: list.count))
        #expect(statusListError { _ = try list.status(at: -1) } == .indexOutOfRange(index: -1, count: list.count))
    }

    @Test("building from indices: the same list as setting them one by one, at every width", arguments: [1, 2, 4, 8])
    func buildingFromIndices(_ bits: Int) throws {
        var random = SeededRandomSource(seed: UInt64(bits)).generator
        let indices = (0..<500).map { _ in Int.random(in: 0..<10_000, using: &random) }
        let status = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        var slow = try StatusList(bits: bits, count: 10_000)
        for index in indices { try slow.setStatus(status, at: index) }
        let fast = try StatusList(bits: bits, count: 10_000, setting: indices, to: status)
        #expect(fast == slow)
        #expect(fast.nonValidStatuses.map(\.index) == Set(indices).sorted())
        #expect(statusListError { _ = try StatusList(bits: bits, count: 16, setting: [16]) } == .indexOutOfRange(index: 16, count: 16))
        #expect(statusListError { _ = try StatusList(bits: bits, count: 16, setting: [-1], to: 0) } == .indexOutOfRange(index: -1, count: 16))
        if bits < 8 {
            #expect(statusListError { _ = try StatusList(bits: bits, count: 16, setting: [1], to: 1 << bits) } == .statusTooWide(status: 1 << bits, bits: bits))
        }
    }

    @Test("a count is rounded up to whole bytes; bits and count are checked")
    func sizes() throws {
        #expect(try StatusList(bits: 1, count: 10).count == 16)
        #expect(try StatusList(bits: 2, count: 10).bytes.count == 3)
        #expect(statusListError { _ = try StatusList(bits: 3, count: 8) } == .unsupportedBits(3))
        #expect(statusListError { _ = try StatusList(bits: 1, count: 0) } == .invalidCount(0))
        #expect(statusListError { _ = try StatusList(bits: 1, count: Int(Int32.max) + 1) } == .invalidCount(Int(Int32.max) + 1))
        #expect(statusListError { _ = try StatusList(bits: 1, bytes: []) } == .emptyList)
    }

    @Test("aggregation_uri (§4.2, §9) is read and written in JSON and CBOR")
    func aggregationURI() throws {
        let uri = "https://wallet-provider.example.org/status/aggregation"
        var list = try StatusList(bits: 1, count: 64, aggregationURI: uri)
        try list.setStatus(1, at: 63)
        let json = try list.jsonObject()
        #expect(json["aggregation_uri"] == .string(uri))
        #expect(try StatusList(json: json).aggregationURI == uri)
        let cbor = try list.cbor()
        #expect(cbor["aggregation_uri"] == .text(uri))
        #expect(try StatusList(cbor: cbor) == list)
        var wrong = json
        wrong["aggregation_uri"] = 7
        #expect(statusListError { _ = try StatusList(json: wrong) } == .malformedStatusList("aggregation_uri is not a string"))
    }

    static let malformedJSON: [(JSONObject, StatusListError)] = [
        (["bits": 3, "lst": "eNrbuRgAAhcBXQ"], .unsupportedBits(3)),
        (["bits": 1], .malformedStatusList("lst missing or not a string")),
        (["lst": "eNrbuRgAAhcBXQ"], .malformedStatusList("bits missing or not an integer")),
        (["bits": "1", "lst": "eNrbuRgAAhcBXQ"], .malformedStatusList("bits missing or not an integer")),
        (["bits": 1, "lst": "eNrbuRgAAhcBX+"], .malformedStatusList("lst is not base64url")),
        (["bits": 1, "lst": "eNrbuRgAAhcBXQ=="], .malformedStatusList("lst is not base64url")),
        (["bits": 1, "lst": ""], .invalidCompression("empty zlib data")),
        (["bits": 1, "lst": "AAAA"], .invalidCompression("not zlib data (-3)")),
        (["bits": 1, "lst": "eNrbuRgAAhc"], .invalidCompression("zlib data truncated")),
        // Raw DEFLATE and gzip are not the ZLIB format (TSL §4.1).
        (["bits": 1, "lst": "27kYAA"], .invalidCompression("not zlib data (-3)")),
        (["bits": 1, "lst": "H4sIAAAAAAACA9u5GABc9QE7AgAAAA"], .invalidCompression("not zlib data (-3)")),
    ]

    @Test("malformed JSON lists", arguments: malformedJSON)
    func malformed(_ json: JSONObject, _ error: StatusListError) {
        #expect(statusListError { _ = try StatusList(json: json) } == error)
    }

    static let malformedCBOR: [(String, StatusListError)] = [
        ("80", .malformedStatusList("not a map")),
        ("a1636c73744a78dadbb918000217015d", .malformedStatusList("bits missing or not an unsigned integer")),
        ("a2646269747320636c73744a78dadbb918000217015d", .malformedStatusList("bits missing or not an unsigned integer")),
        ("a1646269747301", .malformedStatusList("lst missing or not a byte string")),
        ("a2646269747301636c73746a654e7262755267414168", .malformedStatusList("lst missing or not a byte string")),
        ("a2646269747305636c73744a78dadbb918000217015d", .unsupportedBits(5)),
    ]

    @Test("malformed CBOR lists", arguments: malformedCBOR)
    func malformedCBORList(_ hex: String, _ error: StatusListError) throws {
        let bytes = try Data(hex: hex)
        #expect(statusListError { _ = try StatusList(cborBytes: bytes) } == error)
    }

    @Test("CBOR that is not one strictly encoded item is refused")
    func notCBOR() throws {
        for hex in ["a2646269747301636c73744a78dadbb918000217015d00", "a2646269747301646269747301", "ff"] {
            let found = statusListError { _ = try StatusList(cborBytes: try Data(hex: hex)) }
            guard case .malformedStatusList(let reason)? = found else {
                Issue.record("expected malformedStatusList, got \(String(describing: found))")
                continue
            }
            #expect(reason.hasPrefix("not CBOR"))
        }
    }

    @Test("zlib: trailing bytes after the stream, and a decompression bomb, are refused")
    func zlibLimits() throws {
        let good = try Base64URL.decode("eNrbuRgAAhcBXQ")
        #expect(statusListError { _ = try StatusList(json: ["bits": 1, "lst": .string(Base64URL.encode(good + [0]))]) }
            == .invalidCompression("not zlib data (-3)"))
        // 1 MiB of zeros compresses to about 1 KiB: refused under a 64 KiB cap, accepted under the default one.
        let big = try StatusList(bits: 8, count: 1 << 20).jsonObject()
        let limits = StatusListLimits(maxListBytes: 1 << 16, maxTokenBytes: 1 << 20)
        #expect(statusListError { _ = try StatusList(json: big, limits: limits) } == .listTooLarge(limit: 1 << 16))
        #expect(try StatusList(json: big).count == 1 << 20)
        let cbor = try StatusList(bits: 8, count: 1 << 20).cbor()
        #expect(statusListError { _ = try StatusList(cbor: cbor, limits: limits) } == .listTooLarge(limit: 1 << 16))
        // The encoded CBOR list is held to the token size before it is decoded.
        let encoded = cbor.encoded(options: .preserving)
        let small = StatusListLimits(maxListBytes: 1 << 20, maxTokenBytes: encoded.count - 1)
        #expect(statusListError { _ = try StatusList(cborBytes: encoded, limits: small) }
            == .tokenTooLarge(length: encoded.count, limit: encoded.count - 1))
        #expect(try StatusList(cborBytes: encoded, limits: StatusListLimits(maxListBytes: 1 << 20, maxTokenBytes: encoded.count)).count == 1 << 20)
        // A 64 MiB bomb (about 64 KiB compressed) stops at the default 16 MiB cap.
        let bomb = try StatusList(bits: 8, bytes: [UInt8](repeating: 0, count: 64 << 20)).compressedBytes()
        #expect(bomb.count < 100_000)
        #expect(statusListError { _ = try StatusList(cbor: ["bits": 1, "lst": .bytes(Data(bomb))]) } == .listTooLarge(limit: 16 << 20))
    }
}
