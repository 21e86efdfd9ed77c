import ServiceSupport
import Vapor

/// The body of an IT-Wallet attestation request, answered from the IT-Wallet table: the JSON object
/// `{"assertion": …}` (0.9.3, 1.0 and the 1.3 / 1.5 texts' examples) or, where the endpoint takes it, the compact JWT
/// itself, as the production client posts it (io-react-native-wallet "1.3.3": `Content-Type: text/plain`;
/// `application/jwt` names the same). Not the expected content type or JSON object, or another member beside
/// `assertion`: `bad_request`; no assertion: `bad_request`; `assertion` not a non-empty string: `validation_error`.
enum AttestationRequestBody {
    /// Which bodies an endpoint takes.
    enum Form: Sendable {
        /// `{"assertion": …}` only (0.9.3, 1.0).
        case json
        /// `{"assertion": …}` or the raw JWT (1.3, 1.5).
        case jsonOrCompact
    }

    /// Sized for a Key Attestation Request with `KeysToAttest.maxCount` elements.
    static let maxBytes = 640 * 1024

    static func assertion(of request: Request, _ form: Form) throws(WireError) -> String {
        do {
            return try read(request, form)
        } catch {
            throw error.wire(.itWallet)
        }
    }

    private static func read(_ request: Request, _ form: Form) throws(AttestationRequestError) -> String {
        let type = request.headers.contentType
        let raw = (type?.type == "text" && type?.subType == "plain") || (type?.type == "application" && type?.subType == "jwt")
        guard form == .jsonOrCompact, raw else {
            guard let json = JSONBody.object(of: request, limit: maxBytes) else {
                throw .unexpected("the body must be the JSON object {\"assertion\": …} (application/json)"
                    + (form == .jsonOrCompact ? " or the request JWT (text/plain or application/jwt)" : ""))
            }
            if let other = json.keys.sorted().first(where: { $0 != "assertion" }) { throw .unexpected("unknown body member \(other)") }
            guard let value = json["assertion"] else { throw .missing("assertion") }
            guard let assertion = value.stringValue, !assertion.isEmpty else { throw .malformed("assertion must be a non-empty string") }
            return assertion
        }
        guard let buffer = request.body.data, buffer.readableBytes <= maxBytes,
            let text = String(bytes: buffer.readableBytesView, encoding: .utf8)
        else { throw .unexpected("the body must be the request JWT in UTF-8") }
        // A JWS has no whitespace; a trailing newline (a shell's `curl -d @file`) is not part of it.
        let assertion = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !assertion.isEmpty else { throw .missing("assertion") }
        return assertion
    }
}
