import Foundation
import Testing

/// Test inputs written as hex.
public enum FixtureError: Error, CustomStringConvertible {
    case missing(String)
    case badHex(String)

    public var description: String {
        switch self {
        case .missing(let name): return "fixture \(name) not found in the test bundle"
        case .badHex(let s): return "not hex: \(s.prefix(40))"
        }
    }
}

extension Data {
    /// Bytes from lowercase or uppercase hex; an odd length or a non-hex digit throws.
    public init(hex: String) throws {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { throw FixtureError.badHex(hex) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = Self.nibble(chars[i]), let lo = Self.nibble(chars[i + 1]) else {
                throw FixtureError.badHex(hex)
            }
            bytes.append(hi << 4 | lo)
            i += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    public var hex: String { map { String(format: "%02x", $0) }.joined() }
}

public enum Hex {
    /// Bytes of a hex literal in a test; a malformed literal fails the calling test.
    public static func decode(
        _ s: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Data {
        do {
            return try Data(hex: s)
        } catch {
            Issue.record(
                "\(error)", sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
            return Data()
        }
    }

    public static func encode(_ d: some Sequence<UInt8>) -> String { d.map { String(format: "%02x", $0) }.joined() }
}
