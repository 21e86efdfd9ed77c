import ServiceSupport
import Vapor

/// The body of a 1.3 / 1.5 attestation request: the compact JWT itself, as the production client posts it
/// (io-react-native-wallet "1.3.3": `Content-Type: text/plain`; `application/jwt` names the same), or the JSON object
/// `{"assertion": …}` of the texts' examples. Anything else is `400 bad_request`.
enum AttestationRequestBody {
    /// Sized for a Key Attestation Request with `KeysToAttest.maxCount` elements.
    static let maxBytes = 640 * 1024

    static func assertion(of request: Request) throws(WireError) -> String {
        let type = request.headers.contentType
        let bad = WireError(
            .badRequest, "bad_request",
            "the body must be the request JWT (text/plain or application/jwt) or the JSON object {\"assertion\": …}")
        if type?.type == "application", type?.subType == "json" {
            guard let json = JSONBody.object(of: request, limit: maxBytes), json.count == 1,
                let assertion = json["assertion"]?.stringValue, !assertion.isEmpty
            else { throw bad }
            return assertion
        }
        let raw = (type?.type == "text" && type?.subType == "plain") || (type?.type == "application" && type?.subType == "jwt")
        guard raw, let buffer = request.body.data, buffer.readableBytes <= maxBytes,
            let text = String(bytes: buffer.readableBytesView, encoding: .utf8)
        else { throw bad }
        // A JWS has no whitespace; a trailing newline (a shell's `curl -d @file`) is not part of it.
        let assertion = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !assertion.isEmpty else { throw bad }
        return assertion
    }
}
