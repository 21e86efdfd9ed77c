import Foundation
import HolderKit
import OpenID4VP
import TesseraJOSE
import VerifierService
import TesseraHTTP
import HTTPTransport

/// The OpenID4VP part of `tessera demo`: the verifier service runs in process on loopback (SQLite in a temporary
/// home), a wallet holding a PID (SD-JWT VC) and an mDL is filled by `tessera wallet add-*`, and
/// `tessera wallet present` — a second process — answers a `pid_basic` and an `mdl` request; the verified claims
/// are then read back with the response code, as a relying party would.
enum DemoRemote {
    static func run() async throws {
        print("== Remote presentation: OpenID4VP 1.0 to the verifier service on loopback ==")
        let fm = FileManager.default
        let home = fm.temporaryDirectory.appendingPathComponent("tessera-demo-oid4vp-\(UUID().uuidString.prefix(8))")
        defer { try? fm.removeItem(at: home) }
        var environment = ProcessInfo.processInfo.environment
        environment["TESSERA_HOME"] = home.path
        for command in ["add-pid", "add-mdl"] {
            let added = try await Child.run(["wallet", command], environment: environment)
            guard added.status == 0 else { throw UserFacingError("wallet \(command) failed: \(added.stderr)") }
        }
        print("wallet: a PID (dc+sd-jwt) and an mDL (mso_mdoc) in \(home.appendingPathComponent("wallet").path)")
        let configuration = try await VerifierSetup.configuration(
            trust: nil, database: "sqlite://" + home.appendingPathComponent("verifier.sqlite").path, baseURL: nil,
            webRoot: nil, lifetime: 300, announce: false, home: home)
        let server: VerifierServer
        do {
            server = try await VerifierServer.start(configuration, host: "127.0.0.1", port: 0)
        } catch {
            throw UserFacingError(error.description)
        }
        let http = AsyncHTTPClientTransport()
        do {
            print("verifier service: \(server.baseURL) (client_id \(server.clientId); web page at \(server.baseURL)/)")
            for template in ["pid_basic", "mdl"] {
                try await present(template: template, server: server, http: http, environment: environment)
            }
        } catch {
            try? await http.shutdown()
            await server.shutdown()
            throw error
        }
        try? await http.shutdown()
        await server.shutdown()
    }

    private static func present(
        template: String, server: VerifierServer, http: AsyncHTTPClientTransport, environment: [String: String]
    ) async throws {
        let created = try await call(http, .post, server.baseURL + "/api/transactions", json: ["template": .string(template)])
        guard let id = created["transaction_id"]?.stringValue, let link = created["authorization_request_uri"]?.stringValue else {
            throw UserFacingError("the verifier service did not create a transaction: \(created)")
        }
        print("")
        print("$ curl -X POST \(server.baseURL)/api/transactions -d '{\"template\":\"\(template)\"}'")
        print("  transaction \(id), response_mode \(created["response_mode"]?.stringValue ?? "?")")
        print("$ tessera wallet present '\(link.prefix(60))…' --consent all")
        let wallet = try await Child.run(["wallet", "present", link, "--consent", "all", "--json"], environment: environment)
        guard wallet.status == 0, let answer = (try? JSONValue.parse(wallet.stdout))?.objectValue,
            let redirect = answer["redirect_uri"]?.stringValue,
            let code = URLComponents(string: redirect)?.queryItems?.first(where: { $0.name == "response_code" })?.value
        else { throw UserFacingError("wallet present failed: \(wallet.stdout)\(wallet.stderr)") }
        let disclosed = answer["disclosed"]?.objectValue.map { $0.map { "\($0.key): \($0.value.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? "")" } } ?? []
        print("  shared \(disclosed.joined(separator: "; ")) with \(answer["verifier"]?["display_name"]?.stringValue ?? "the verifier")")
        let result = try await call(http, .get, server.baseURL + "/api/transactions/\(id)?response_code=\(code)")
        guard result["status"] == "completed", let claims = result["verified_claims"]?.objectValue else {
            throw UserFacingError("the verifier did not complete the transaction: \(result)")
        }
        print("  verifier: \(result["status"]?.stringValue ?? "?"), verified claims \(String(decoding: claims.serialized(), as: UTF8.self))")
    }

    private static func call(
        _ http: AsyncHTTPClientTransport, _ method: HTTPRequest.Method, _ url: String, json: JSONObject? = nil
    ) async throws -> JSONObject {
        guard let target = URL(string: url) else { throw UserFacingError("bad URL \(url)") }
        let request = HTTPRequest(
            method: method, url: target, headers: json == nil ? [] : [("Content-Type", "application/json")], body: json?.serialized())
        let response = try await http.send(request)
        guard let object = (try? JSONValue.parse(response.body))?.objectValue else {
            throw UserFacingError("\(url) answered \(response.status) without JSON")
        }
        return object
    }
}
