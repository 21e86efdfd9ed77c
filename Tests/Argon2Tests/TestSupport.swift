import Foundation
import Testing

/// Fixtures/ files in the test bundle (copied from the shared vector pack, so tests never read outside it).
enum Fixtures {
    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "fixture \(name) not found in the test bundle" }
    }

    static func url(_ name: String) throws -> URL {
        let base = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        guard let url = Bundle.module.url(forResource: base, withExtension: ext, subdirectory: "Fixtures") else {
            throw Missing(name: name)
        }
        return url
    }
}

struct BadHex: Error, CustomStringConvertible {
    let text: String
    var description: String { "not hex: \(text.prefix(40))" }
}

/// Bytes from hex (either case); an odd length or a non-hex digit throws.
func bytes(hex: String) throws -> [UInt8] {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { throw BadHex(text: hex) }
    var out: [UInt8] = []
    out.reserveCapacity(digits.count / 2)
    var i = 0
    while i < digits.count {
        guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { throw BadHex(text: hex) }
        out.append(hi << 4 | lo)
        i += 2
    }
    return out
}

private func nibble(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}

extension Collection<UInt8> {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// The Python interpreter for the argon2-cffi peer, found like TesseraTestSupport's `PythonPeer`:
/// `TESSERA_PYTHON`, else `<package root>/.build/pyenv/bin/python3` as `scripts/test` sets it up.
/// Kept local so that this test target needs no module beyond Argon2.
enum PythonInterpreter {
    static let missingMessage = "Python peers missing: run scripts/test"

    static var path: String? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["TESSERA_PYTHON"], !env.isEmpty,
            fm.isExecutableFile(atPath: env)
        {
            return env
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Argon2Tests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
        let venv = packageRoot.appendingPathComponent(".build/pyenv/bin/python3").path
        return fm.isExecutableFile(atPath: venv) ? venv : nil
    }
}
