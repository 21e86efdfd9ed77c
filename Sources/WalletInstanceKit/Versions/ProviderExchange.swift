import Foundation
import TesseraHTTP
import TesseraJOSE

/// The HTTP calls the versioned flows make (TesseraHTTP's `HTTPClient`, injected): a status other than the
/// expected one becomes ``WalletInstanceError/provider(status:error:description:)``, and 403 naming a revoked or
/// unknown instance becomes ``WalletInstanceError/instanceRevoked``.
struct ProviderExchange: Sendable {
    let http: any HTTPClient

    func get(_ url: URL, accept: String? = nil) async throws(WalletInstanceError) -> HTTPResponse {
        try await perform(HTTPRequest(method: .get, url: url, headers: accept.map { [("Accept", $0)] } ?? []))
    }

    func postJSON(_ url: URL, _ body: JSONObject, session: String? = nil, expect: Int = 200) async throws(WalletInstanceError) -> HTTPResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if let session { headers.append(("Authorization", "Bearer " + session)) }
        return try await perform(HTTPRequest(method: .post, url: url, headers: headers, body: body.serialized()), expect: expect)
    }

    /// The production client's 1.3 encoding: the JWT itself as `text/plain`.
    func postRaw(_ url: URL, jwt: String) async throws(WalletInstanceError) -> HTTPResponse {
        try await perform(HTTPRequest(method: .post, url: url, headers: [("Content-Type", "text/plain")], body: Data(jwt.utf8)))
    }

    /// `{"nonce"}` from `url`.
    func nonce(_ url: URL) async throws(WalletInstanceError) -> String {
        let response = try await get(url)
        guard let nonce = (try? JSONValue.parse(response.body))?["nonce"]?.stringValue else {
            throw .provider(status: response.status, error: "invalid_response", description: "no nonce")
        }
        return nonce
    }

    /// The answer's JSON object.
    static func object(_ response: HTTPResponse) throws(WalletInstanceError) -> JSONObject {
        guard let object = (try? JSONValue.parse(response.body))?.objectValue else {
            throw .provider(status: response.status, error: "invalid_response", description: "not a JSON object")
        }
        return object
    }

    /// `request`, answered with `expect` (a revoked or unknown instance's 403 is ``WalletInstanceError/instanceRevoked``).
    func perform(_ request: HTTPRequest, expect: Int = 200) async throws(WalletInstanceError) -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await http.send(request)
        } catch {
            throw .transport("\(error)")
        }
        guard response.status == expect else {
            let body = (try? JSONValue.parse(response.body))?.objectValue
            let error = body?["error"]?.stringValue ?? "http_\(response.status)"
            let description = body?["error_description"]?.stringValue ?? body?["detail"]?.stringValue ?? ""
            if response.status == 403, description.contains("revoked") || description.contains("no wallet instance") {
                throw .instanceRevoked
            }
            throw .provider(status: response.status, error: error, description: description)
        }
        return response
    }
}
