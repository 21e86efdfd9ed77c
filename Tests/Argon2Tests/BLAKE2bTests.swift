import Testing

@testable import Argon2

@Suite("BLAKE2b (RFC 7693)")
struct BLAKE2bTests {
    static func digest(_ message: [UInt8], length: Int = 64) -> [UInt8] {
        var hash = BLAKE2b(digestLength: length)
        hash.update(message)
        return hash.finalize()
    }

    @Test("RFC 7693 Appendix A: BLAKE2b-512(\"abc\")")
    func appendixA() {
        #expect(
            Self.digest(Array("abc".utf8)).hex
                == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                + "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
    }

    /// Known answers computed with Python's hashlib.blake2b (an independent implementation):
    /// the empty message, "abc" with a 32-byte digest, and messages of i mod 251 around the 128-byte block size.
    @Test("known answers (hashlib.blake2b)")
    func knownAnswers() {
        #expect(
            Self.digest([]).hex
                == "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
                + "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce")
        #expect(
            Self.digest(Array("abc".utf8), length: 32).hex
                == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
        let expected: [Int: String] = [
            127: "b6292669ccd38d5f01caae96ba272c76a879a45743afa0725d83b9ebb26665b7"
                + "31f1848c52f11972b6644f554c064fa90780dbbbf3a89d4fc31f67df3e5857ef",
            128: "2319e3789c47e2daa5fe807f61bec2a1a6537fa03f19ff32e87eecbfd64b7e0e"
                + "8ccff439ac333b040f19b0c4ddd11a61e24ac1fe0f10a039806c5dcc0da3d115",
            129: "f59711d44a031d5f97a9413c065d1e614c417ede998590325f49bad2fd444d3e"
                + "4418be19aec4e11449ac1a57207898bc57d76a1bcf3566292c20c683a5c4648f",
            256: "93463ac058b6163eb43be3f5bb32b28541498f4e3366f1effe253ad44e1e076e"
                + "41c3616046027c82a7124f8f4746668ad10b12e8e25a95ac8f3151df01cd5a93",
            257: "9ca40e2ddee9436dbbd08efc65dbaf4870059f5eb3d76efd20241ae5bf13c60f"
                + "250b882ea5c564838257a3fc95c496819ace2c6490b55b268535208dfc31822c",
        ]
        for (length, hex) in expected {
            #expect(Self.digest((0..<length).map { UInt8($0 % 251) }).hex == hex, "length \(length)")
        }
        let thousand = (0..<1000).map { UInt8($0 % 251) }
        #expect(Self.digest(thousand, length: 1).hex == "b7")
        #expect(Self.digest(thousand, length: 20).hex == "fc9a2426db78846a07219bc181a52bae9a62eacc")
    }

    @Test("input fed in pieces hashes like one piece", arguments: [1, 7, 64, 127, 128, 129, 300])
    func streaming(pieceLength: Int) {
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var hash = BLAKE2b(digestLength: 64)
        var offset = 0
        while offset < message.count {
            let end = min(offset + pieceLength, message.count)
            hash.update(Array(message[offset..<end]))
            offset = end
        }
        #expect(hash.finalize() == Self.digest(message))
    }

    @Test("finalize wipes the state")
    func finalizeWipes() {
        var hash = BLAKE2b(digestLength: 64)
        hash.update(Array("password".utf8))
        let wipedBefore = hash.isWiped
        #expect(!wipedBefore)
        _ = hash.finalize()
        let wipedAfter = hash.isWiped
        #expect(wipedAfter)
    }
}
