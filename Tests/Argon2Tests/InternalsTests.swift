import Testing

@testable import Argon2

@Suite("H', memory wiping, lanes")
struct InternalsTests {
    /// RFC 9106 §3.3 H'^T(A) for A = 0, 1, ..., 99. Known answers computed by a Python transcription of §3.3 on
    /// hashlib.blake2b; T = 64 is the one-digest case, T > 64 chains digests (and 1024-byte H' outputs are
    /// covered by every full Argon2 vector, whose first blocks come from it).
    @Test(
        "H' known answers",
        arguments: [
            (4, "f24fc61a"),
            (
                64,
                "e479354646d07868106005e63a2951b1954410b46b33d436af813334a593da91"
                    + "0e58eed3b6db843bfcca424b7f8b849a8c9ae80213aeadf7305d4ba65687c81b"
            ),
            (
                65,
                "040e318554cdb864ed248493b4ef35f3b17c06c9f7f9109f8a7e057bacdbe6ab"
                    + "23f41961c02ee92cc087d98a919b481bb0d2ea30592285511afe8bf9705c94d081"
            ),
            (
                96,
                "9a09559a0db45fa6cf4acbaa6f62249c9d6d408652e105e37247e04ac6bc1e64"
                    + "50c91930718aa1db829b11e23c7b9d8c7e204edaa5a470e226da02f99bd31208"
                    + "a01417ff2bffd3e89d5b0382a0b01ec8b652df183e840c53df55b19d07b548d9"
            ),
            (
                97,
                "9b73a8f833edf3a654176c78a5d47e09648d47a086f41e22ad160291817596a7"
                    + "b20c08c5496bd85b6c45f608dec9fc27a1c9c0aab3a8ba78e497de541201b734"
                    + "59faeb54c1547b582ffb65a71dafb07c9dafd4357b04a750a03f7dcdf115938a97"
            ),
            (
                200,
                "5ee4cdcf4bb35cca74280a38e7ed163dc315faae8228afb494b78a9231de0811"
                    + "b1f9e29c9e083c79a5abe9da390d5f74b14f14193cfa8ed1a1e40b28e90cf534"
                    + "c26b9388a527a320b5a250eb0e044685e95eae56e77aea5d065ee103e0b5bef2"
                    + "134c44fe8b89c38d6d072954518200576b5a03e02c21bedbd0898c49b63bf0d9"
                    + "98da607afc7139ca70ce4c1767c9f2ca0cae2ae56989e4a793a3602006e9e97c"
                    + "7aaf927fa0aefbb61f5a439c5de48a49b463d011c5d4656745cfed14ff8dc326"
                    + "29669d25f48eded7"
            ),
        ])
    func variableLength(length: Int, hex: String) {
        let input = (0..<100).map { UInt8($0) }
        var output = [UInt8](repeating: 0, count: length)
        output.withUnsafeMutableBytes { buffer in
            variableLengthHash(into: buffer) { hash in hash.update(input) }
        }
        #expect(output.hex == hex)
    }

    @Test("the matrix is wiped after the tag is computed", arguments: [Argon2Variant.argon2d, .argon2i, .argon2id])
    func matrixWiped(variant: Argon2Variant) throws {
        let parameters = Argon2Parameters(variant: variant, memoryKiB: 64, iterations: 2, parallelism: 2)
        try parameters.validate()
        let h0 = Argon2.preHashDigest(
            password: Array("password".utf8), salt: Array("somesalt".utf8), secret: [UInt8](),
            associatedData: [UInt8](), parameters: parameters)
        var matrix = MemoryMatrix(shape: MatrixShape(parameters: parameters))
        matrix.setFirstBlocks(h0: h0)
        matrix.fill()
        // Booleans first: a failed expectation on the matrix itself would print all its blocks.
        let filledIsWiped = matrix.isWiped
        #expect(!filledIsWiped, "the filled matrix holds password-derived blocks")
        let tag = matrix.tag(length: 32)

        var again = MemoryMatrix(shape: MatrixShape(parameters: parameters))
        #expect(again.computeTag(h0: h0, length: 32) == tag)
        let wiped = again.isWiped
        #expect(wiped, "computeTag (the path Argon2.hash takes) must leave the blocks and scratch zeroed")
        #expect(
            tag
                == (try Argon2.hash(
                    password: Array("password".utf8), salt: Array("somesalt".utf8), parameters: parameters)))
    }

    /// m' = 4p * floor(m / 4p) (RFC 9106 §3.2 step 5): memory beyond a multiple of 4p is not used.
    @Test("memory is rounded down to a multiple of 4p blocks")
    func memoryRounding() {
        let shape = MatrixShape(parameters: Argon2Parameters(memoryKiB: 100, iterations: 1, parallelism: 3))
        #expect(shape.blockCount == 96)
        #expect(shape.laneLength == 32)
        #expect(shape.segmentLength == 8)
    }

    @Test("hashes run concurrently from several tasks give the same tags")
    func concurrentCallers() async throws {
        let parameters = Argon2Parameters(memoryKiB: 128, iterations: 2, parallelism: 4)
        let expected = try Argon2.hash(password: Array("pw".utf8), salt: Array("saltsalt".utf8), parameters: parameters)
        let tags = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try Argon2.hash(password: Array("pw".utf8), salt: Array("saltsalt".utf8), parameters: parameters)
                }
            }
            var all: [[UInt8]] = []
            for try await tag in group { all.append(tag) }
            return all
        }
        #expect(tags.count == 8)
        #expect(tags.allSatisfy { $0 == expected })
    }
}
