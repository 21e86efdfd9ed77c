import Crypto
import Foundation
import Testing

@testable import TesseraCOSE

/// Interop with pycose, both ways, through Fixtures/pycose_peer.py (hex over argv/stdout).
///
/// The Python peer runs from `TESSERA_PYTHON` or `<package root>/.build/pyenv/bin/python3`
/// (set up by scripts/test). If neither exists these tests fail; they are never skipped.
@Suite("pycose interop")
struct PycoseInteropTests {
    struct PeerResult {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Runs the peer; records a failure (not a skip) when Python is missing.
    func peer(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> PeerResult? {
        let script = try Fixtures.url("pycose_peer.py")
        guard let output = try PythonPeer.run([script.path] + arguments, sourceLocation: sourceLocation) else { return nil }
        let result = PeerResult(
            status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self), stderr: output.stderr)
        if result.status == 2 {
            Issue.record("pycose peer unusable: \(result.stderr)", sourceLocation: sourceLocation)
            return nil
        }
        return result
    }

    static let algorithms = ["ES256", "EdDSA"]

    @Test("Swift signs, pycose verifies", arguments: algorithms)
    func swiftSignsPycoseVerifies(_ alg: String) throws {
        let key: COSESigningKey = alg == "ES256" ? .p256(P256.Signing.PrivateKey()) : .ed25519(Curve25519.Signing.PrivateKey())
        let payload = Data("signed in Swift".utf8)
        let aad = Data([0xca, 0xfe])
        let message = try COSESign1.sign(
            payload: payload, with: key, unprotected: COSEHeaders(keyID: Data("swift".utf8)), externalAAD: aad)
        let publicKey = key.verificationKey.coseKey().encoded().hex

        let result = try #require(try peer(["verify", publicKey, message.encoded().hex, aad.hex]))
        #expect(result.status == 0, "pycose: \(result.stdout) \(result.stderr)")
        #expect(result.lines == ["valid"])

        // Sanity: pycose does reject what it should (wrong external AAD).
        let rejected = try #require(try peer(["verify", publicKey, message.encoded().hex, "00"]))
        #expect(rejected.status == 1, "pycose accepted a wrong AAD: \(rejected.stdout)")
    }

    @Test("pycose signs, Swift verifies", arguments: algorithms)
    func pycoseSignsSwiftVerifies(_ alg: String) throws {
        let payload = Data("signed in Python".utf8)
        let aad = Data([0x01, 0x02, 0x03])
        let result = try #require(try peer(["sign", alg, payload.hex, aad.hex]))
        #expect(result.status == 0, "pycose: \(result.stderr)")
        let lines = result.lines
        try #require(lines.count == 2, "unexpected peer output: \(result.stdout)")
        let key = try COSEKey(bytes: Data(hex: lines[0]))
        #expect(!key.isPrivate)
        let message = try COSESign1(bytes: Data(hex: lines[1]), tag: .required)
        #expect(message.payload == payload)
        #expect(try message.algorithm() == (alg == "ES256" ? .es256 : .edDSA))
        #expect(coseError { try message.verify(with: key, externalAAD: aad) } == nil)
        #expect(coseError { try message.verify(with: key) } == .signatureInvalid)
    }
}
