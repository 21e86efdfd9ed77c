import Foundation
import Testing

@testable import Argon2

/// Interop with argon2-cffi (libargon2, the reference implementation) in both directions, through
/// Fixtures/argon2_peer.py. The interpreter is `TESSERA_PYTHON` or `<package root>/.build/pyenv/bin/python3`
/// (scripts/test installs argon2-cffi there); without it these tests fail, they are never skipped.
///
/// Inputs are pseudo-random from a fixed seed, so a failure is reproducible.
@Suite("argon2-cffi interop")
struct ArgonCFFIInteropTests {
    struct RawCase: Codable {
        let type: String
        let version: UInt32
        let memory_kib: UInt32
        let iterations: UInt32
        let parallelism: UInt32
        let tag_length: UInt32
        let password_hex: String
        let salt_hex: String
        let secret_hex: String
        let associated_data_hex: String
        /// Swift's PHC string (only for cases without secret and associated data, which the string cannot carry).
        let phc_string: String?
    }

    struct RawResult: Decodable {
        let tag_hex: String
        let verifies: Bool?
        let wrong_password_refused: Bool?
    }

    struct HasherCase: Codable {
        let type: String
        let memory_kib: UInt32
        let iterations: UInt32
        let parallelism: UInt32
        let tag_length: UInt32
        let salt_length: Int
        let password_hex: String
    }

    struct HasherResult: Decodable {
        let phc_string: String
    }

    struct PeerFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the peer on `cases`; records a failure (not a skip) when Python is missing.
    static func peer<Request: Encodable, Response: Decodable>(
        _ mode: String, _ cases: [Request], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [Response]? {
        guard let python = PythonInterpreter.path else {
            Issue.record("\(PythonInterpreter.missingMessage)", sourceLocation: sourceLocation)
            return nil
        }
        let request = FileManager.default.temporaryDirectory
            .appendingPathComponent("tessera-argon2-\(UUID().uuidString).json")
        try JSONEncoder().encode(cases).write(to: request)
        defer { try? FileManager.default.removeItem(at: request) }
        // stderr goes to a file, so that only one pipe is read and neither can fill up and block the peer.
        let errorFile = request.appendingPathExtension("stderr")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [try Fixtures.url("argon2_peer.py").path, mode, request.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errorHandle
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errorHandle.close()
        guard process.terminationStatus == 0 else {
            let stderr = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            if process.terminationStatus == 2 {
                Issue.record("\(PythonInterpreter.missingMessage) (\(stderr))", sourceLocation: sourceLocation)
                return nil
            }
            throw PeerFailure(description: "argon2 peer exited \(process.terminationStatus): \(stderr)")
        }
        return try JSONDecoder().decode([Response].self, from: stdout)
    }

    @Test("Swift hashes, argon2-cffi computes the same tag and accepts Swift's PHC strings")
    func swiftToPython() throws {
        var random = SeededGenerator(seed: 0x5EED_A260)
        var cases: [RawCase] = []
        var swiftTags: [[UInt8]] = []
        for index in 0..<36 {
            let variant = Argon2Variant.allCases[index % 3]
            let version = index % 6 < 3 ? Argon2Parameters.version13 : Argon2Parameters.version10
            let p = UInt32.random(in: 1...4, using: &random)
            let parameters = Argon2Parameters(
                variant: variant, version: version, memoryKiB: UInt32.random(in: (8 * p)...256, using: &random),
                iterations: UInt32.random(in: 1...3, using: &random), parallelism: p,
                // Past 64 bytes H' chains several BLAKE2b digests (RFC 9106 §3.3).
                tagLength: [4, 16, 32, 64, 65, 100, 128][Int.random(in: 0..<7, using: &random)])
            let password = random.bytes(count: Int.random(in: 0...40, using: &random))
            let salt = random.bytes(count: Int.random(in: 8...32, using: &random))
            // Every fourth case adds a secret K and associated data X (hashed through argon2_ctx on the peer).
            let keyed = index % 4 == 3
            let secret = keyed ? random.bytes(count: Int.random(in: 1...32, using: &random)) : []
            let associatedData = keyed ? random.bytes(count: Int.random(in: 0...24, using: &random)) : []
            let tag = try Argon2.hash(
                password: password, salt: salt, secret: secret, associatedData: associatedData, parameters: parameters)
            swiftTags.append(tag)
            let phc = keyed ? nil : try Argon2EncodedHash(parameters: parameters, salt: salt, hash: tag).string
            cases.append(
                RawCase(
                    type: variant.identifier, version: version, memory_kib: parameters.memoryKiB,
                    iterations: parameters.iterations, parallelism: p, tag_length: parameters.tagLength,
                    password_hex: password.hex, salt_hex: salt.hex, secret_hex: secret.hex,
                    associated_data_hex: associatedData.hex, phc_string: phc))
        }
        let results: [RawResult] = try #require(try Self.peer("raw", cases))
        try #require(results.count == cases.count)
        for (i, result) in results.enumerated() {
            let c = cases[i]
            let label =
                "\(c.type) v=\(c.version) m=\(c.memory_kib) t=\(c.iterations) p=\(c.parallelism) T=\(c.tag_length)"
            #expect(result.tag_hex == swiftTags[i].hex, "tag differs: \(label)")
            if c.phc_string != nil {
                #expect(result.verifies == true, "argon2-cffi refused Swift's PHC string: \(label)")
                #expect(result.wrong_password_refused == true, "argon2-cffi accepted a changed password: \(label)")
            }
        }
    }

    @Test("argon2-cffi's PasswordHasher hashes, Swift verifies and refuses a changed password")
    func pythonToSwift() throws {
        var random = SeededGenerator(seed: 0xC0FF_EE19)
        var cases: [HasherCase] = []
        var passwords: [[UInt8]] = []
        for index in 0..<18 {
            let p = UInt32.random(in: 1...4, using: &random)
            let password = random.bytes(count: Int.random(in: 0...32, using: &random))
            passwords.append(password)
            cases.append(
                HasherCase(
                    type: Argon2Variant.allCases[index % 3].identifier,
                    memory_kib: UInt32.random(in: (8 * p)...256, using: &random),
                    iterations: UInt32.random(in: 1...3, using: &random), parallelism: p,
                    tag_length: [16, 32, 64][index % 3], salt_length: [8, 16, 32][index / 3 % 3],
                    password_hex: password.hex))
        }
        let results: [HasherResult] = try #require(try Self.peer("hasher", cases))
        try #require(results.count == cases.count)
        for (i, result) in results.enumerated() {
            let encoded = result.phc_string
            #expect(try Argon2.verify(password: passwords[i], encoded: encoded), "refused: \(encoded)")
            #expect(try !Argon2.verify(password: passwords[i] + [0x21], encoded: encoded), "accepted: \(encoded)")
            // Parsing and writing give the peer's string back (argon2-cffi writes the same canonical form).
            #expect(try Argon2EncodedHash(parsing: encoded).string == encoded)
        }
    }
}

/// SplitMix64: reproducible pseudo-random test inputs (never used for real salts).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}
