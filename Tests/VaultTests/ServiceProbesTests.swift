import Foundation
import HTTPTransport
import ServiceSupport
import Synchronization
import TesseraHTTP
import TesseraJOSE
import Testing
import Vapor

/// `GET /health` and `GET /ready`, which every service started through `ServiceApplication.start` answers.
@Suite(.serialized)
struct ServiceProbesTests {
    @Test func healthAndReadyAnswerAndReadyNamesWhatIsMissing() async throws {
        let natsUp = Mutex(true)
        try await withService(readiness: [
            ReadinessCheck(name: "nats") { natsUp.withLock { $0 } ? nil : "not connected" }
        ]) { get, _ in
            let health = try await get("/health")
            #expect(health.status == 200 && health.json?["status"]?.stringValue == "ok")
            let ready = try await get("/ready")
            #expect(ready.status == 200 && ready.json?["status"]?.stringValue == "ready")
            #expect(ready.json?["checks"] == .array(["database", "nats"]))

            natsUp.withLock { $0 = false }
            let notReady = try await get("/ready")
            #expect(notReady.status == 503)
            #expect(notReady.json?["error"]?.stringValue == "not_ready")
            #expect(notReady.json?["error_description"]?.stringValue == "nats: not connected")
            // Alive all the same.
            let alive = try await get("/health")
            #expect(alive.status == 200)
            #expect(alive.headers.contains { $0.name.lowercased() == "x-request-id" && !$0.value.isEmpty })

            // Prometheus text: Vapor's request counters by route and status, the statements' time.
            let metrics = try await get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers.contains { $0.name.lowercased() == "content-type" && $0.value.hasPrefix("text/plain; version=0.0.4") })
            let text = String(decoding: metrics.body, as: UTF8.self)
            #expect(text.contains(#"http_requests_total{method="GET",path="/ready",status="503"}"#), "\(text)")
            #expect(text.contains(#"tessera_db_statement_duration_seconds_count{database="sqlite"}"#))
        }
    }

    @Test func readyFailsWhenTheDatabaseDoesNotAnswer() async throws {
        try await withService(readiness: []) { get, app in
            #expect(try await get("/ready").status == 200)
            app.inlineSQLite?.close()
            let notReady = try await get("/ready")
            #expect(notReady.status == 503)
            #expect(notReady.json?["error_description"]?.stringValue == "database: the database does not answer")
        }
    }

    typealias Get = @Sendable (String) async throws -> HTTPResponse

    private func withService(readiness: [ReadinessCheck], _ body: (Get, Application) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-probes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let started = try await ServiceApplication.start(
            name: "probes-test", database: .sqlite(path: directory.appendingPathComponent("p.sqlite").path), migrations: [],
            host: "127.0.0.1", port: 0, readiness: readiness
        ) { _ in }
        let http = AsyncHTTPClientTransport()
        let base = ServiceApplication.baseURL(host: "127.0.0.1", port: started.port)
        let get: Get = { path in
            guard let url = URL(string: base + path) else { throw URLError(.badURL) }
            return try await http.send(HTTPRequest(method: .get, url: url))
        }
        do {
            try await body(get, started.app)
        } catch {
            try? await http.shutdown()
            await started.app.server.shutdown()
            try? await started.app.asyncShutdown()
            throw error
        }
        try await http.shutdown()
        await started.app.server.shutdown()
        try await started.app.asyncShutdown()
    }
}

extension HTTPResponse {
    fileprivate var json: JSONObject? { (try? JSONValue.parse(body))?.objectValue }
}
