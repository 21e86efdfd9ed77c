import Foundation
import Testing
import TesseraCore

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
        #expect(throws: Base64URLError.invalid, "\(text.debugDescription)") { try Base64URL.decode(text) }
    }

    @Test("every byte at every position of a quantum and of a 2- or 3-character tail: accepted exactly when it is in the alphabet, and decoded as Foundation does")
    func everyByteAtEveryPosition() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for (template, positions) in [(Array("QUJD".utf8), 0..<4), (Array("QUJDRA".utf8), 4..<6), (Array("QUJDREU".utf8), 4..<7)] {
            for position in positions {
                for byte in UInt8.min...UInt8.max {
                    var text = template
                    text[position] = byte
                    let decoded = text.withUnsafeBufferPointer { try? Base64URL.decode(utf8: $0) }
                    // Foundation's decoder over the standard alphabet, padded; it accepts non-zero trailing bits.
                    let standard = String(decoding: text.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }, as: UTF8.self)
                    let padded = standard + String(repeating: "=", count: (4 - text.count % 4) % 4)
                    let inAlphabet = alphabet.contains(byte)
                    if !inAlphabet {
                        #expect(decoded == nil, "byte \(byte) at \(position) of \(template.count)")
                    } else if let decoded {
                        #expect(decoded == Data(base64Encoded: padded), "byte \(byte) at \(position) of \(template.count)")
                    } else {
                        // Only a tail whose last character leaves non-zero trailing bits is refused.
                        #expect(position == text.count - 1 && text.count % 4 != 0, "byte \(byte) at \(position) of \(template.count)")
                    }
                }
            }
        }
    }
}
