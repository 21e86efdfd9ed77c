import Foundation
import Testing
import TesseraTestSupport

enum Fixtures {
    static func url(_ name: String) throws -> URL { try fixtureURL(name, in: .module) }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }
}

/// Runs Fixtures/zxing_peer.py once over a batch of PNG files and returns its per-file results.
enum ZXingPeer {
    struct Entry: Encodable {
        let file: String
        let size: Int
        let scale: Int
        let quietZone: Int
    }

    struct Result: Decodable {
        let file: String
        let ok: Bool
        let error: String?
        let bytes_hex: String?
        let version: Int?
        let level: String?
        let mask: Int?
        let width: Int?
        let height: Int?
        let mode: String?
        let modules: String?
        let quiet_zone_light: Bool?
        let chunks: [String]?
    }

    enum PeerError: Error, CustomStringConvertible {
        case failed(status: Int32, stderr: String)
        var description: String {
            switch self {
            case .failed(let status, let stderr): return "zxing peer exited \(status): \(stderr)"
            }
        }
    }

    /// Decodes every entry; records a failure (never a skip) when the Python peers are missing.
    static func decode(_ entries: [Entry], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Result]? {
        guard let python = PythonPeer.interpreter else {
            Issue.record("\(PythonPeer.missingMessage)", sourceLocation: sourceLocation)
            return nil
        }
        let manifest = FileManager.default.temporaryDirectory
            .appendingPathComponent("tessera-qr-manifest-\(UUID().uuidString).json")
        try JSONEncoder().encode(entries).write(to: manifest)
        defer { try? FileManager.default.removeItem(at: manifest) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [try Fixtures.url("zxing_peer.py").path, manifest.path]
        // stderr goes to a file, so that only one pipe is read and neither can fill up and block the peer.
        let errorFile = manifest.appendingPathExtension("stderr")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errorHandle
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errorHandle.close()
        guard process.terminationStatus == 0 else {
            let stderr = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            throw PeerError.failed(status: process.terminationStatus, stderr: stderr)
        }
        return try JSONDecoder().decode([Result].self, from: stdout)
    }
}

/// A scratch directory removed by `remove()`.
struct TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func remove() { try? FileManager.default.removeItem(at: url) }
}
