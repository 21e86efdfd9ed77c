import Foundation
import TesseraJOSE
import Vapor

/// An error as it goes on the wire (ARCHITECTURE decision 8): `{"error", "error_description"}` with the spec's
/// code and HTTP status, `Cache-Control: no-store`. The description never carries a secret.
public struct WireError: Error, Sendable, Equatable {
    public let status: HTTPResponseStatus
    public let code: String
    public let description: String

    public init(_ status: HTTPResponseStatus, _ code: String, _ description: String) {
        self.status = status
        self.code = code
        self.description = description
    }

    public var response: Response {
        JSONBody.response(["error": .string(code), "error_description": .string(description)], status: status)
    }

    /// RFC 6749 §5.2 `server_error` for anything unexpected (details stay in the server).
    public static let server = WireError(.internalServerError, "server_error", "the request could not be handled")
}

/// Turns every error that reaches the responder into a `WireError` answer: Vapor's own 404 for an unknown route,
/// 413 for an oversized body, 415, 405 … included, so no Tessera server ever answers `{"error": true, "reason": …}`.
public struct WireErrorMiddleware: AsyncMiddleware {
    public init() {}

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch let error as WireError {
            return error.response
        } catch let abort as any AbortError {
            return Self.wire(for: abort.status).response
        } catch {
            request.logger.error("unhandled error: \(String(reflecting: type(of: error)))")
            return WireError.server.response
        }
    }

    /// The OAuth-style code for a status Vapor raised on its own.
    static func wire(for status: HTTPResponseStatus) -> WireError {
        switch status {
        case .notFound: return WireError(.notFound, "not_found", "no such resource")
        case .payloadTooLarge: return WireError(.payloadTooLarge, "invalid_request", "the request body is too large")
        case .methodNotAllowed: return WireError(.methodNotAllowed, "invalid_request", "method not allowed")
        case .unsupportedMediaType:
            return WireError(.unsupportedMediaType, "invalid_request", "unsupported content type")
        case .serviceUnavailable: return WireError(.serviceUnavailable, "temporarily_unavailable", "try again later")
        default:
            if status.code >= 500 { return .server }
            return WireError(status, "invalid_request", status.reasonPhrase)
        }
    }
}
