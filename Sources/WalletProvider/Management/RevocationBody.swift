import ServiceSupport
import Vapor

/// The revocation request body, `{"status": "REVOKED"}` (1.0.2 "Wallet Instance Revocation Request"; the same
/// body on the production `PUT …/status`). Not a JSON object, `status` absent or another member: 400
/// `bad_request`; `status` present with any other value: 422 `validation_error`.
enum RevocationBody {
    static func check(_ request: Request) throws(WireError) {
        guard let json = JSONBody.object(of: request) else {
            throw WireError(.badRequest, "bad_request", "the body must be the JSON object {\"status\": \"REVOKED\"} (application/json)")
        }
        if let other = json.keys.first(where: { $0 != "status" }) {
            throw WireError(.badRequest, "bad_request", "unknown body member \(other)")
        }
        guard let status = json["status"] else {
            throw WireError(.badRequest, "bad_request", "the request is missing the status parameter")
        }
        guard status.stringValue == InstanceResource.revoked else {
            throw WireError(.unprocessableEntity, "validation_error", "status can only be set to REVOKED")
        }
    }
}
