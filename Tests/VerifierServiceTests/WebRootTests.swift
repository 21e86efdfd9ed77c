import AsyncHTTPClient
import Foundation
import TesseraJOSE
import Testing
import Vapor
import VerifierService

/// The web root is served as files, and only its files are looked up: an API request never costs a file-system
/// lookup, a hidden file is never served, and a file added after start waits for a restart.
@Suite struct WebRootTests {
    @Test func onlyTheFilesOfTheWebRootAreServed() async throws {
        let fixture = try await ServiceFixture(database: "sqlite")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-webroot-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("img"), withIntermediateDirectories: true)
        try Data("<html>verifier</html>".utf8).write(to: root.appendingPathComponent("index.html"))
        try Data("<svg/>".utf8).write(to: root.appendingPathComponent("img/logo.svg"))
        try Data("SECRET=1".utf8).write(to: root.appendingPathComponent(".env"))
        var configuration = fixture.configuration
        configuration.webRoot = root
        let server = try await VerifierServer.start(configuration, host: "127.0.0.1", port: 0)

        func get(_ path: String, _ method: HTTPMethod = .GET) async throws -> HTTPClient.Response {
            try await WireErrorTests.send(method, server.baseURL + path)
        }
        func body(_ response: HTTPClient.Response) -> String {
            response.body.map { String(buffer: $0) } ?? ""
        }

        for path in ["/", "/index.html", "/?transaction_id=abc"] {
            let page = try await get(path)
            #expect(page.status == .ok, "\(path)")
            #expect(body(page) == "<html>verifier</html>", "\(path)")
        }
        let logo = try await get("/img/logo.svg")
        #expect(logo.status == .ok)
        #expect(body(logo) == "<svg/>")
        #expect(try await get("/img/logo.svg", .HEAD).status == .ok)

        try Data("late".utf8).write(to: root.appendingPathComponent("late.txt"))
        for path in ["/.env", "/late.txt", "/img/", "/missing.js"] {
            let missing = try await get(path)
            #expect(missing.status == .notFound, "\(path)")
            let error = (try? JSONValue.parse(Data(body(missing).utf8)))?.objectValue
            #expect(error?["error"]?.stringValue == "not_found", "\(path)")
        }
        // The API is untouched: a transaction is still created and read.
        let (id, _) = try await fixture.createTransaction(["template": "pid_basic"])
        #expect(try await fixture.status(id).status == 200)
        await server.shutdown()
        await fixture.shutdown()
    }
}
