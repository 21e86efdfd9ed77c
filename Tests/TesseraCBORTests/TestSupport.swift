import Foundation
import TesseraCBOR

enum Hex {
    static func decode(_ s: String) -> Data {
        var out = Data()
        var iterator = s.utf8.makeIterator()
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return 0
            }
        }
        while let hi = iterator.next(), let lo = iterator.next() { out.append(nibble(hi) << 4 | nibble(lo)) }
        return out
    }

    static func encode(_ d: some Sequence<UInt8>) -> String { d.map { String(format: "%02x", $0) }.joined() }
}

enum Fixtures {
    static func json(_ name: String) throws -> [String: Any] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures") else {
            throw FixtureError.missing(name)
        }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url), options: [.fragmentsAllowed])
        guard let dict = object as? [String: Any] else { throw FixtureError.missing(name) }
        return dict
    }

    enum FixtureError: Error { case missing(String) }
}

/// Decodes hex as a test input, failing the test with the decoder's error.
func cbor(_ hex: String, _ options: CBORDecodingOptions = .strict) throws -> CBOR {
    try CBOR.decode(Hex.decode(hex), options: options)
}

/// The error `body` throws, or nil.
func caught(_ body: () throws -> Void) -> CBORError? {
    do {
        try body()
        return nil
    } catch let e as CBORError {
        return e
    } catch {
        return nil
    }
}
