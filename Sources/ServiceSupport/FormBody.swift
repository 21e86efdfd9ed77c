import Foundation
import TesseraHTTP
import Vapor

/// An `application/x-www-form-urlencoded` request body (RFC 6749 §3.2 and Appendix B): UTF-8, at most `limit` bytes,
/// each parameter at most once. One reader for every service (token endpoints, the portal's forms, a wallet's
/// `wallet_metadata`). Refusals are `400 invalid_request`.
public struct FormBody: Sendable {
    public private(set) var fields: [String: String] = [:]

    /// - Parameter requireContentType: whether the request must say `application/x-www-form-urlencoded` (an
    ///   OpenID4VP wallet posting to a request URI may leave it out).
    public init(_ request: Request, limit: Int = 64 * 1024, requireContentType: Bool = true) throws(WireError) {
        let invalid = { (what: String) in WireError(.badRequest, "invalid_request", what) }
        if requireContentType {
            guard request.headers.contentType?.type == "application",
                request.headers.contentType?.subType == "x-www-form-urlencoded"
            else { throw invalid("the body must be application/x-www-form-urlencoded") }
        }
        guard let buffer = request.body.data else { return }
        guard buffer.readableBytes <= limit, let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
            throw invalid("the form body is not UTF-8 text within \(limit / 1024) KiB")
        }
        do {
            for pair in try FormURLEncoding.decode(text) { fields[pair.name] = pair.value }
        } catch {
            throw invalid("the form body is not well-formed or repeats a parameter")
        }
    }

    public subscript(name: String) -> String? { fields[name] }
}
