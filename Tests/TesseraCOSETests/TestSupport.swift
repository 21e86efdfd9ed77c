import Foundation
import Testing

@testable import TesseraCOSE
@_exported import TesseraTestSupport

enum Fixtures {
    static func url(_ name: String) throws -> URL { try fixtureURL(name, in: .module) }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    static func load<T: Decodable>(_ type: T.Type, from name: String) throws -> T {
        try JSONDecoder().decode(T.self, from: data(name))
    }
}

/// The fields of the cose-wg/Examples vector files that the tests use
/// (see /work/shared/vectors/README.md, section cose/).
struct COSEVectorFile: Decodable {
    let count: Int
    let cases: [COSEVector]
}

struct COSEVector: Decodable, Sendable {
    struct Key: Decodable, Sendable {
        let kty: String
        let crv: String?
        let cose_key_hex: String
        let x_hex: String?
        let y_hex: String?
        let d_hex: String?
        let k_hex: String?
    }

    struct Input: Decodable, Sendable {
        let payload_hex: String
        let external_aad_hex: String
        let alg_id: Int?
        let key: Key?
    }

    struct Intermediates: Decodable, Sendable {
        let ToBeSigned_hex: String?
        let ToMac_hex: String?
        let CEK_hex: String?
    }

    struct Output: Decodable, Sendable {
        let cbor_hex: String
        let cbor_tag: UInt64?
        let protected_bstr_hex: String?
        let signature_hex: String?
        let tag_hex: String?
    }

    let name: String
    let expected_result: String
    let structure: String
    let input: Input
    let intermediates: Intermediates?
    let output: Output
    let contested: String?
    let protected_bytes_in_tbs_hex: String?

    var expectsPass: Bool { expected_result == "pass" }
}

struct AnnexDFile: Decodable {
    let vectors: [String: String]

    func bytes(_ name: String) throws -> Data {
        guard let hex = vectors[name] else { throw FixtureError.missing("Annex D vector \(name)") }
        return try Data(hex: hex)
    }
}

/// Runs `body` and returns the `COSEError` it throws, or nil if it throws nothing.
/// Any other error fails the test (the library throws `COSEError` only).
func coseError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> COSEError? {
    do {
        try body()
        return nil
    } catch let error as COSEError {
        return error
    } catch {
        Issue.record("expected a COSEError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
