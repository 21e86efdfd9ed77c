import Crypto
import Foundation
import TesseraCBOR
import TesseraCOSE
@_exported import TesseraTestSupport

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

