import Foundation
import OpenID4VP
import ServiceSupport
import TesseraJOSE
import TesseraQR
import Vapor

/// The HTTP surface: the JSON API for relying parties and the web page, and the two wallet endpoints.
struct Routes: Sendable {
    /// The service for one request, on that request's database handle (`request.db`: its own event loop's
    /// connection pool, not one loop's pool shared by every request).
    let service: @Sendable (Request) -> TransactionService

    func register(on routes: any RoutesBuilder) {
        let api = routes.grouped("api", "transactions")
        api.post(use: { request in await Self.answer { try await create(request) } })
        api.get(":id", use: { request in await Self.answer { try await status(request) } })
        api.get(":id", "qr.svg", use: { request in await Self.answer { try await qrCode(request) } })
        routes.get("request", ":id", use: { request in await Self.answer { try await requestObject(request, post: false) } })
        routes.post("request", ":id", use: { request in await Self.answer { try await requestObject(request, post: true) } })
        routes.on(.POST, "response", ":id", body: .collect(maxSize: "4mb"), use: { request in
            await Self.answer { try await response(request) }
        })
    }

    /// Runs a handler; an `APIError` becomes its wire form, anything else a generic 500 (never the details).
    static func answer(_ handler: () async throws -> Response) async -> Response {
        do {
            return try await handler()
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError.server("the request could not be handled").response
        }
    }

    private func create(_ request: Request) async throws(APIError) -> Response {
        let created = try await service(request).create(body: try JSONResponse.body(of: request))
        let transaction = created.transaction
        return JSONResponse.make(
            [
                "transaction_id": .string(transaction.id ?? ""),
                "authorization_request_uri": .string(created.authorizationRequestURI),
                "request_uri": .string(created.requestURI),
                "response_mode": .string(transaction.responseMode),
                "expires_at": .integer(Int64(transaction.expiresAt)),
            ], status: .created)
    }

    private func status(_ request: Request) async throws(APIError) -> Response {
        let id = request.parameters.get("id") ?? ""
        let service = self.service(request)
        guard let transaction = try await service.store.find(id) else { throw .notFound("no transaction \(id)") }
        var body: JSONObject = [
            "transaction_id": .string(id),
            "status": .string(service.publicStatus(of: transaction).rawValue),
            "response_mode": .string(transaction.responseMode),
            "expires_at": .integer(Int64(transaction.expiresAt)),
        ]
        if let error = transaction.error { body["error"] = .string(error) }
        if let description = transaction.errorDescription { body["error_description"] = .string(description) }
        if let code = request.query[String.self, at: "response_code"] {
            // §8.2: the verified data only to the holder of the response code, once.
            guard let result = try await service.store.redeemResponseCode(id, code: code),
                let claims = (try? JSONValue.parse(result))?.objectValue
            else { throw .notFound("the response code is unknown or was already used") }
            body["verified_claims"] = .object(claims)
        }
        return JSONResponse.make(body)
    }

    private func qrCode(_ request: Request) async throws(APIError) -> Response {
        let id = request.parameters.get("id") ?? ""
        let service = self.service(request)
        guard let transaction = try await service.store.find(id) else { throw .notFound("no transaction \(id)") }
        let uri = service.authorizationRequestURI(transactionID: transaction.id ?? "")
        guard let svg = try? QRCode.encode(uri, level: .medium).svgString(scale: 6) else {
            throw .server("the request link does not fit a QR code")
        }
        var headers = HTTPHeaders()
        headers.contentType = HTTPMediaType(type: "image", subType: "svg+xml")
        return Response(status: .ok, headers: headers, body: .init(string: svg))
    }

    private func requestObject(_ request: Request, post: Bool) async throws(APIError) -> Response {
        let id = request.parameters.get("id") ?? ""
        var walletNonce: String?
        if post {
            let form: [String: String]
            do {
                form = try FormBody(request, requireContentType: false).fields
            } catch {
                throw .invalidRequest(error.description)
            }
            walletNonce = form["wallet_nonce"]
            if let metadata = form["wallet_metadata"], (try? JSONValue.parse(metadata))?.objectValue == nil {
                throw .invalidRequest("wallet_metadata is not a JSON object")
            }
        }
        let jwt = try await service(request).requestObject(id: id, walletNonce: walletNonce)
        var headers = HTTPHeaders()
        headers.contentType = HTTPMediaType(type: "application", subType: "oauth-authz-req+jwt")
        headers.add(name: .cacheControl, value: "no-store")
        return Response(status: .ok, headers: headers, body: .init(string: jwt))
    }

    private func response(_ request: Request) async throws(APIError) -> Response {
        let id = request.parameters.get("id") ?? ""
        guard let buffer = request.body.data else { throw .invalidRequest("the response body is empty") }
        switch try await service(request).receive(id: id, body: Data(buffer.readableBytesView)) {
        case .verified(let redirectURI): return JSONResponse.make(["redirect_uri": .string(redirectURI)])
        case .walletError: return JSONResponse.make([:])
        }
    }
}
