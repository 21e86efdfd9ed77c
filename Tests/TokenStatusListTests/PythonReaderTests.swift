import Foundation
import TesseraCore
import TesseraJOSE
import Testing
import TokenStatusList

/// An independent decoder agrees with what Tessera issues: scripts/peers/status_list_reader.py (Python zlib, its
/// own bit reader, cbor2 for the CWT, cryptography for the signature with the x5c / x5chain leaf key) reads every
/// status of issued JWT and CWT tokens.
///
/// The interpreter is `TESSERA_PYTHON` or `<package root>/.build/pyenv/bin/python3` (scripts/test sets it up); if
/// neither exists these tests fail, they are never skipped.
@Suite("Python status list reader interop")
struct PythonReaderTests {
    /// Runs the reader on `token` (written to a temporary file) and returns its JSON output.
    func read(_ kind: String, _ token: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tsl-\(UUID().uuidString).\(kind)")
        try token.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = PythonPeer.script("status_list_reader.py").path
        guard let output = try PythonPeer.run([script, kind, file.path], sourceLocation: sourceLocation) else { return nil }
        guard output.status == 0 else {
            Issue.record("reader exit \(output.status): \(output.stderr)", sourceLocation: sourceLocation)
            return nil
        }
        return try JSONValue.parse(output.stdout)
    }

    /// The statuses the reader found, as `[index, status]` pairs.
    static func pairs(_ list: StatusList) -> JSONValue {
        .array(list.nonValidStatuses.map { .array([.integer(Int64($0.index)), .integer(Int64($0.status))]) })
    }

    /// A list of `count` entries with about 1 % of them set to random non-VALID statuses.
    static func randomList(bits: Int, count: Int, seed: UInt64) throws -> StatusList {
        var random = SeededRandomSource(seed: seed).generator
        let max = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        let entries = (0..<count / 100).map { _ in
            (index: Int.random(in: 0..<count, using: &random), status: UInt8.random(in: 1...max, using: &random))
        }
        return try StatusList(bits: bits, count: count, statuses: entries, aggregationURI: bits == 4 ? "https://x.example/agg" : nil)
    }

    @Test("JWT form: every status, the claims, the signature", arguments: [1, 2, 4, 8])
    func jwt(_ bits: Int) throws {
        let issuer = try TestIssuer()
        let list = try Self.randomList(bits: bits, count: 100_000, seed: UInt64(bits))
        let token = try StatusListToken.issue(
            list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, expiresAt: TestIssuer.now.addingTimeInterval(86_400),
            timeToLive: 3600, key: .es256(issuer.key), x5c: issuer.chain)
        let result = try #require(try read("jwt", Data(token.jwt.compact.utf8)))
        #expect(result["signature"] == "valid")
        #expect(result["typ"] == "statuslist+jwt")
        #expect(result["sub"] == .string(TestIssuer.uri))
        #expect(result["iat"] == .integer(Int64(TestIssuer.now.timeIntervalSince1970)))
        #expect(result["ttl"] == 3600)
        #expect(result["bits"] == .integer(Int64(bits)))
        #expect(result["bytes"] == .integer(Int64(list.bytes.count)))
        #expect(result["aggregation_uri"] == (list.aggregationURI.map(JSONValue.string) ?? .null))
        #expect(result["non_valid"] == Self.pairs(list))
        #expect(list.nonValidStatuses.count > 900)
    }

    @Test("CWT form (cbor2): every status, the claims, the signature over Sig_structure", arguments: [1, 2, 4, 8])
    func cwt(_ bits: Int) throws {
        let issuer = try TestIssuer()
        let list = try Self.randomList(bits: bits, count: 100_000, seed: 100 + UInt64(bits))
        let token = try StatusListCWT.issue(
            list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, expiresAt: TestIssuer.now.addingTimeInterval(86_400),
            timeToLive: 43_200, key: .p256(issuer.key), x5chain: issuer.chain)
        let result = try #require(try read("cwt", token.bytes))
        #expect(result["signature"] == "valid")
        #expect(result["typ"] == "application/statuslist+cwt")
        #expect(result["sub"] == .string(TestIssuer.uri))
        #expect(result["exp"] == .integer(Int64(TestIssuer.now.timeIntervalSince1970) + 86_400))
        #expect(result["ttl"] == 43_200)
        #expect(result["bits"] == .integer(Int64(bits)))
        #expect(result["non_valid"] == Self.pairs(list))
    }

    @Test("the 1,000,000-entry list a Wallet Provider re-issues, revoked rows only")
    func millionEntries() throws {
        let issuer = try TestIssuer()
        var random = SeededRandomSource(seed: 1_000_000).generator
        let revoked = (0..<10_000).map { _ in Int.random(in: 0..<1_000_000, using: &random) }
        let list = try StatusList(bits: 1, count: 1_000_000, setting: revoked)
        let token = try StatusListToken.issue(list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, key: .es256(issuer.key), x5c: issuer.chain)
        let result = try #require(try read("jwt", Data(token.jwt.compact.utf8)))
        #expect(result["signature"] == "valid")
        #expect(result["non_valid"]?.arrayValue?.compactMap { $0.arrayValue?.first?.int64Value }.map(Int.init) == Set(revoked).sorted())
    }
}
