import Foundation
import ServiceSupport
import TesseraJOSE
import Vapor

/// An error on the wire (ARCHITECTURE decision 8): `{"error", "error_description"}` with the OAuth / OpenID4VP
/// code and the HTTP status the spec gives; bad input is never a 500.
enum APIError: Error, Sendable, Equatable {
    /// 400 `invalid_request` (RFC 6749 §5.2; OpenID4VP §8.6 for a response that fails verification).
    case invalidRequest(String)
    /// 404 `invalid_request`: no such transaction, or a response code that is wrong or used.
    case notFound(String)
    /// 400 `invalid_transaction`-style: the transaction expired or already has its response.
    case transactionClosed(String)
    /// 500 `server_error`: the database or signing failed; the description never carries secrets.
    case server(String)

    var status: HTTPResponseStatus {
        switch self {
        case .invalidRequest, .transactionClosed: return .badRequest
        case .notFound: return .notFound
        case .server: return .internalServerError
        }
    }

    var code: String {
        switch self {
        case .invalidRequest, .notFound, .transactionClosed: return "invalid_request"
        case .server: return "server_error"
        }
    }

    var errorDescription: String {
        switch self {
        case .invalidRequest(let text), .notFound(let text), .transactionClosed(let text), .server(let text): return text
        }
    }

    /// The shared wire form (ServiceSupport), the same as every other Tessera server's errors.
    var wire: WireError { WireError(status, code, errorDescription) }

    var response: Response { wire.response }
}

/// JSON bodies in and out through TesseraJOSE's strict JSON (size and depth limits, exact values).
enum JSONResponse {
    static func make(_ object: JSONObject, status: HTTPResponseStatus = .ok) -> Response {
        JSONBody.response(object, status: status)
    }

    /// The request body as a JSON object (at most 64 KiB), whatever its Content-Type: `curl -d` sends JSON as a
    /// form, and the README shows exactly that.
    static func body(of request: Request) throws(APIError) -> JSONObject {
        guard let buffer = request.body.data, buffer.readableBytes <= 64 * 1024 else {
            throw .invalidRequest("the body must be a JSON object of at most 64 KiB")
        }
        guard let object = (try? JSONValue.parse(buffer.readableBytesView))?.objectValue else {
            throw .invalidRequest("the body is not a JSON object")
        }
        return object
    }
}
