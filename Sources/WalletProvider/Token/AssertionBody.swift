import ServiceSupport
import TesseraJOSE
import Vapor

/// The JSON body `{"assertion": "<request JWT>"}` of the 0.9.3 and 1.0 Wallet Attestation endpoints. Not a JSON
/// object, `assertion` absent or another member beside it: `bad_request` (malformed, missing or unknown
/// parameters); `assertion` not a string: `validation_error` (not in its required format).
enum AssertionBody {
    static func assertion(of request: Request) throws(AttestationRequestFailure) -> String {
        guard let json = JSONBody.object(of: request) else {
            throw .unexpected("the body must be the JSON object {\"assertion\": …} (application/json)")
        }
        if let other = json.keys.first(where: { $0 != "assertion" }) { throw .unexpected("unknown body member \(other)") }
        guard let value = json["assertion"] else { throw .missing("assertion") }
        guard let assertion = value.stringValue, !assertion.isEmpty else { throw .malformed("assertion must be a non-empty string") }
        return assertion
    }
}
