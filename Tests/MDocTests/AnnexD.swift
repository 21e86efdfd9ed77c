import Crypto
import Foundation
import TesseraCBOR
import TesseraCOSE

/// ISO/IEC 18013-5:2021 Annex D vectors (fixture copied from shared/vectors; its `source` field names
/// where they come from: multipaz TestVectors.kt, cross-checked with other implementations).
enum AnnexD {
    static let vectors: [String: String] = {
        guard let url = Bundle.module.url(forResource: "iso18013-5-annex-d", withExtension: "json", subdirectory: "Fixtures"),
            let data = try? Data(contentsOf: url),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let v = json["vectors"] as? [String: String]
        else { return [:] }
        return v
    }()

    static func bytes(_ name: String) -> Data { Hex.decode(vectors[name] ?? "") }

    /// The pinned instant every Annex D certificate and the MSO are valid at.
    static let validationTime = Date(timeIntervalSince1970: 1_609_459_200)  // 2021-01-01T00:00:00Z

    static func p256Private(_ name: String) throws -> P256.KeyAgreement.PrivateKey {
        try P256.KeyAgreement.PrivateKey(rawRepresentation: bytes(name))
    }

    static func signingPrivate(_ name: String) throws -> P256.Signing.PrivateKey {
        try P256.Signing.PrivateKey(rawRepresentation: bytes(name))
    }
}

enum Hex {
    static func decode(_ s: String) -> Data {
        var out = Data()
        var it = s.utf8.makeIterator()
        func n(_ c: UInt8) -> UInt8 {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return 0
            }
        }
        while let h = it.next(), let l = it.next() { out.append(n(h) << 4 | n(l)) }
        return out
    }

    static func encode(_ d: some Sequence<UInt8>) -> String { d.map { String(format: "%02x", $0) }.joined() }
}
