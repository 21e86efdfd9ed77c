import Foundation
import Testing

@testable import TesseraJOSE

@Suite("base64url (RFC 7515 §2)")
struct Base64URLTests {
    @Test("RFC 4648 §10 vectors, without padding, both ways", arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func vectors(_ plain: String, _ encoded: String) throws {
        #expect(Base64URL.encode(Data(plain.utf8)) == encoded)
        #expect(try Base64URL.decode(encoded) == Data(plain.utf8))
    }

    @Test("the URL-safe alphabet is used for 62 and 63")
    func alphabet() throws {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(try Base64URL.decode("-_-_") == Data([0xFB, 0xFF, 0xBF]))
    }

    @Test("every byte string round-trips", arguments: 0..<40)
    func roundTrip(_ length: Int) throws {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
        #expect(try Base64URL.decode(Base64URL.encode(bytes)) == Data(bytes))
    }

    @Test("strict decoding rejects padding, the standard alphabet, white space, bad lengths and non-zero trailing bits",
          arguments: ["Zg==", "Zm8=", "+/+/", "a/b=", "Zm9v\n", " Zm9v", "Zm9 v", "Z", "Zm9vY", "Zh", "Zm9", "Zm-", "é", "Zm9v."])
    func rejects(_ text: String) {
        #expect(joseError { _ = try Base64URL.decode(text) } == .invalidBase64URL, "\(text.debugDescription)")
    }
}
