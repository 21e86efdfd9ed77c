import Foundation
import MDoc
import OpenID4VP
import SDJWT
import TesseraCBOR
import TesseraJOSE
import TesseraCore

/// The `verified_claims` object of a completed transaction: per credential query id, one entry per accepted
/// presentation with its format, type and the claims it disclosed.
enum VerifiedClaims {
    /// SD-JWT VC claims that describe the credential rather than the subject (SD-JWT VC §3.2.2).
    static let technicalClaims: Set<String> = ["iss", "iat", "nbf", "exp", "cnf", "status", "vct", "vct#integrity", "_sd_alg"]

    static func json(_ verification: VPTokenVerification) -> JSONObject {
        var result = JSONObject()
        for queryId in verification.accepted.keys.sorted() {
            let entries = (verification.accepted[queryId] ?? []).map { presentation -> JSONValue in
                switch presentation {
                case .sdJWTVC(let outcome):
                    var claims = JSONObject()
                    for member in outcome.processedClaims where !technicalClaims.contains(member.key) {
                        claims[member.key] = member.value
                    }
                    var entry: JSONObject = ["format": "dc+sd-jwt", "claims": .object(claims)]
                    if let vct = outcome.processedClaims["vct"] { entry["vct"] = vct }
                    if let issuer = outcome.processedClaims["iss"] { entry["iss"] = issuer }
                    return .object(entry)
                case .mdoc(let document):
                    var claims = JSONObject()
                    for namespace in document.issuerSignedElements.keys.sorted() {
                        var elements = JSONObject()
                        let items = document.issuerSignedElements[namespace] ?? [:]
                        for element in items.keys.sorted() { elements[element] = items[element].map(jsonValue) }
                        claims[namespace] = .object(elements)
                    }
                    return .object(["format": "mso_mdoc", "doctype": .string(document.docType), "claims": .object(claims)])
                }
            }
            result[queryId] = .array(entries)
        }
        return result
    }

    /// mdoc element values as JSON: text, numbers and booleans as themselves, byte strings as base64url,
    /// full-date / tdate as their text (ISO 18013-5 §7.2.1).
    static func jsonValue(_ value: CBOR) -> JSONValue {
        switch value {
        case .unsigned(let number): return number <= UInt64(Int64.max) ? .integer(Int64(number)) : .string(String(number))
        case .negative(let number): return number < UInt64(Int64.max) ? .integer(-1 - Int64(number)) : .string("-1-\(number)")
        case .bytes(let bytes): return .string(Base64URL.encode(bytes))
        case .text(let text): return .string(text)
        case .array(let items): return .array(items.map(jsonValue))
        case .map(let map):
            var object = JSONObject()
            for entry in map { object[entry.key.textValue ?? "\(entry.key)"] = jsonValue(entry.value) }
            return .object(object)
        case .tagged(_, let inner): return jsonValue(inner)
        case .bool(let flag): return .bool(flag)
        case .null, .undefined: return .null
        case .half(let number), .float(let number): return .number(Double(number))
        case .double(let number): return .number(number)
        case .simple(let number): return .string("simple(\(number))")
        }
    }
}
