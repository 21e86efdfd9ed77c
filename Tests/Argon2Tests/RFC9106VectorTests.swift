import Foundation
import Testing

@testable import Argon2

/// Fixtures/rfc9106.json (copied from the shared vector pack): the RFC 9106 §5 vectors with their H0, the
/// reference implementation's Argon2id cases, and argon2-cffi cases at m = 64 MiB and 19 MiB.
@Suite("RFC 9106 vectors")
struct RFC9106VectorTests {
    struct Pack: Decodable {
        let count: Int
        let cases: [Case]
    }

    struct Case: Decodable, CustomTestStringConvertible {
        struct Input: Decodable {
            let password_hex: String
            let salt_hex: String
            let secret_hex: String
            let associated_data_hex: String
            let memory_kib: UInt32
            let iterations: UInt32
            let parallelism: UInt32
            let tag_length: UInt32
        }
        struct Intermediates: Decodable {
            let pre_hashing_digest_H0_hex: String
        }
        struct Expected: Decodable {
            let tag_hex: String
            let phc_string: String?
        }
        let name: String
        let group: String
        let type: String
        let version: UInt32
        let input: Input
        let intermediates: Intermediates?
        let expected: Expected

        var testDescription: String { name }

        func parameters() throws -> Argon2Parameters {
            let variant = try #require(Argon2Variant.allCases.first { $0.identifier == type })
            return Argon2Parameters(
                variant: variant, version: version, memoryKiB: input.memory_kib, iterations: input.iterations,
                parallelism: input.parallelism, tagLength: input.tag_length)
        }
    }

    static let pack: Pack? = {
        guard let url = try? Fixtures.url("rfc9106.json"), let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Pack.self, from: data)
    }()

    static var cases: [Case] { pack?.cases ?? [] }

    @Test("the pack loads and holds every case")
    func packLoads() throws {
        let pack = try #require(Self.pack, "Fixtures/rfc9106.json missing or unreadable")
        #expect(pack.cases.count == pack.count)
        #expect(pack.count == 20)
        #expect(Set(pack.cases.map(\.type)) == ["argon2d", "argon2i", "argon2id"])
    }

    @Test("tag", arguments: cases)
    func tag(_ vector: Case) throws {
        let tag = try Argon2.hash(
            password: try bytes(hex: vector.input.password_hex), salt: try bytes(hex: vector.input.salt_hex),
            secret: try bytes(hex: vector.input.secret_hex),
            associatedData: try bytes(hex: vector.input.associated_data_hex), parameters: try vector.parameters())
        #expect(tag.hex == vector.expected.tag_hex)
    }

    @Test("H0 (RFC 9106 §3.2 pre-hashing digest)", arguments: cases.filter { $0.intermediates != nil })
    func preHashDigest(_ vector: Case) throws {
        let h0 = Argon2.preHashDigest(
            password: try bytes(hex: vector.input.password_hex), salt: try bytes(hex: vector.input.salt_hex),
            secret: try bytes(hex: vector.input.secret_hex),
            associatedData: try bytes(hex: vector.input.associated_data_hex), parameters: try vector.parameters())
        #expect(h0.hex == vector.intermediates?.pre_hashing_digest_H0_hex)
    }

    /// The PHC strings of the pack: parsing gives the case's parameters, salt and tag, and writing gives the
    /// string back. (No hashing here: the tag test already computed each of them.)
    @Test("PHC string round trip", arguments: cases.filter { $0.expected.phc_string != nil })
    func phcString(_ vector: Case) throws {
        let string = try #require(vector.expected.phc_string)
        let parsed = try Argon2EncodedHash(parsing: string)
        #expect(parsed.parameters == (try vector.parameters()))
        #expect(parsed.salt == (try bytes(hex: vector.input.salt_hex)))
        #expect(parsed.hash.hex == vector.expected.tag_hex)
        #expect(parsed.string == string)
    }
}
