import Foundation
import TesseraJOSE
import Testing
import Vapor

/// Errors the service's own handlers never see — an unknown route, a known path with the wrong method, a body
/// over the limit — come out as every Tessera server's errors do: `{"error", "error_description"}` as JSON with
/// `Cache-Control: no-store` and the right status, never Vapor's `{"error": true, "reason": …}`.
@Suite struct WireErrorTests {
    struct Case: CustomStringConvertible {
        let method: HTTPMethod
        let path: String
        var contentType: String?
        var body: Data?
        let status: Int
        let error: String
        /// The `Allow` header a 405 must carry (RFC 9110 §15.5.6).
        var allow: String?

        var description: String { "\(method) \(path)" }
    }

    static let unknownID = "AAAAAAAAAAAAAAAAAAAAAA"

    static let cases: [Case] = [
        Case(method: .GET, path: "/no/such/route", status: 404, error: "not_found"),
        Case(method: .POST, path: "/api/nothing", contentType: "application/json", body: Data("{}".utf8), status: 404, error: "not_found"),
        Case(method: .DELETE, path: "/api/transactions", status: 405, error: "invalid_request", allow: "POST"),
        Case(method: .GET, path: "/response/\(unknownID)", status: 405, error: "invalid_request", allow: "POST"),
        Case(method: .PUT, path: "/request/\(unknownID)", status: 405, error: "invalid_request", allow: "GET, POST, HEAD"),
        Case(method: .POST, path: "/api/transactions/\(unknownID)", status: 405, error: "invalid_request", allow: "GET, HEAD"),
        Case(method: .PATCH, path: "/api/transactions/\(unknownID)/qr.svg", status: 405, error: "invalid_request", allow: "GET, HEAD"),
        // Over the 64 KiB default, and over the 4 MiB of the response endpoint.
        Case(method: .POST, path: "/api/transactions", contentType: "application/json",
             body: (["template": .string(String(repeating: "a", count: 100_000))] as JSONObject).serialized(), status: 413, error: "invalid_request"),
        Case(method: .POST, path: "/request/\(unknownID)", contentType: "application/x-www-form-urlencoded",
             body: Data(repeating: 0x61, count: 100_000), status: 413, error: "invalid_request"),
        Case(method: .POST, path: "/response/\(unknownID)", contentType: "application/x-www-form-urlencoded",
             body: Data(repeating: 0x61, count: 4 * 1024 * 1024 + 1), status: 413, error: "invalid_request"),
        // The wrong content type: what is not a JSON object is refused as the OAuth error it is.
        Case(method: .POST, path: "/api/transactions", contentType: "text/plain", body: Data("template=mdl".utf8), status: 400, error: "invalid_request"),
        Case(method: .POST, path: "/api/transactions", contentType: "application/json", body: Data("[1, 2]".utf8), status: 400, error: "invalid_request"),
    ]

    @Test func vaporsOwnErrorsAnswerInTheWireForm() async throws {
        let fixture = try await ServiceFixture(database: "sqlite")
        var failures: [String] = []
        for item in Self.cases {
            var headers = HTTPHeaders()
            if let contentType = item.contentType { headers.add(name: "Content-Type", value: contentType) }
            let response = try await Self.send(
                item.method, fixture.server.baseURL + item.path, headers: headers, body: item.body)
            let bytes = response.body ?? ByteBuffer()
            let object = (try? JSONValue.parse(bytes.readableBytesView))?.objectValue
            let problems = [
                response.status.code == item.status ? nil : "status \(response.status.code), expected \(item.status)",
                response.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true ? nil : "not JSON",
                response.headers.first(name: "Cache-Control") == "no-store" ? nil : "no Cache-Control: no-store",
                object.map { Set($0.keys) } == ["error", "error_description"] ? nil : "members are not exactly error, error_description",
                object?["error"]?.stringValue == item.error ? nil : "error is not \(item.error)",
                (object?["error_description"]?.stringValue?.isEmpty ?? true) ? "no error_description" : nil,
                response.headers.first(name: "Allow") == item.allow ? nil : "Allow: \(response.headers.first(name: "Allow") ?? "none")",
            ].compactMap { $0 }
            if !problems.isEmpty {
                failures.append("\(item): \(problems.joined(separator: "; ")) — \(String(decoding: bytes.readableBytesView.prefix(200), as: UTF8.self))")
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        await fixture.shutdown()
    }

    /// The store is started as every service's is: SQLite in write-ahead-log mode (its `-wal` file beside the
    /// database while the service runs).
    @Test func sqliteRunsInWALMode() async throws {
        let fixture = try await ServiceFixture(database: "sqlite")
        guard case .sqlite(let path) = fixture.database else { throw FixtureError("not an SQLite file") }
        _ = try await fixture.createTransaction(["template": "mdl"])
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        await fixture.shutdown()
    }

    /// Any method, unlike the wallet transport (GET and POST only).
    static func send(_ method: HTTPMethod, _ url: String, headers: HTTPHeaders = [:], body: Data? = nil) async throws -> HTTPClient.Response {
        let request = try HTTPClient.Request(url: url, method: method, headers: headers, body: body.map { .data($0) })
        return try await HTTPClient.shared.execute(request: request).get()
    }

    /// The added 405 routes shadow nothing: the page, the API and a Request Object still answer.
    @Test func theServedRoutesStillAnswer() async throws {
        let fixture = try await ServiceFixture(database: "sqlite")
        let page = try await Self.send(.GET, fixture.server.baseURL + "/")
        #expect(page.status == .ok)
        #expect(page.headers.first(name: "Content-Type")?.hasPrefix("text/html") == true)
        let (id, _) = try await fixture.createTransaction(["template": "pid_basic"])
        #expect(try await fixture.status(id).status == 200)
        #expect(try await fixture.call(.get, "/request/\(id)").status == 200)
        #expect(try await fixture.call(.post, "/request/\(id)", form: "wallet_nonce=n").status == 200)
        #expect(try await Self.send(.HEAD, fixture.server.baseURL + "/api/transactions/\(id)").status == .ok)
        await fixture.shutdown()
    }
}
