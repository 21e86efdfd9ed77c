import Foundation
import MDoc
import TesseraCore
import TesseraJOSE
import WalletInstanceKit

/// How `tessera wallet-instance attest` and `key-attest` show what the provider issued: each document as received
/// and its decoded claims (JWT: header and payload; `dc+sd-jwt`: the issuer JWT's payload and the disclosures;
/// `mso_mdoc`: the docType, validity and each element in CBOR diagnostic notation). Never the attestation key.
enum AttestationPrinter {
    /// `{"spec", "wallet_instance_attestation" | "wallet_attestation", "header", "claims", "client_status"?}`, or
    /// for 1.0 `{"spec", "wallet_attestations": [{"format", "wallet_attestation", "claims"}]}`.
    static func json(_ record: WalletInstanceRecord) -> JSONObject {
        var object: JSONObject = ["spec": .string(record.specVersion?.rawValue ?? "0.9")]
        if let formats = record.attestationFormats {
            object["wallet_attestations"] = .array(["jwt", "dc+sd-jwt", "mso_mdoc"].compactMap { format in
                formats[format].map { .object(["format": .string(format), "wallet_attestation": .string($0), "claims": claims(format: format, $0)]) }
            })
        } else if let jwt = record.walletAttestation {
            let name = (record.specVersion ?? .v0_9) >= .v1_3 ? "wallet_instance_attestation" : "wallet_attestation"
            object[name] = .string(jwt)
            object["header"] = (try? CompactJWS(parsing: jwt)).map { .object($0.header) } ?? .null
            object["claims"] = claims(format: "jwt", jwt)
        }
        if let expiry = record.attestationExpiresAt { object["expires_at"] = .integer(Int64(expiry.timeIntervalSince1970)) }
        if let status = record.clientStatus {
            object["client_status"] = ["uri": .string(status.uri), "idx": .integer(Int64(status.index))]
        }
        return object
    }

    /// Text: the version, then per document its format, its claims (indented JSON) and the document itself.
    static func text(_ record: WalletInstanceRecord) -> String {
        let object = json(record)
        var lines = ["spec: \(object["spec"]?.stringValue ?? "?")"]
        if let list = object["wallet_attestations"]?.arrayValue {
            for entry in list {
                lines.append("\(entry["format"]?.stringValue ?? "?"):")
                lines.append("  claims: \(entry["claims"]?.serializedString ?? "{}")")
                lines.append("  \(entry["wallet_attestation"]?.stringValue ?? "")")
            }
        } else if let jwt = object["wallet_instance_attestation"]?.stringValue ?? object["wallet_attestation"]?.stringValue {
            lines.append("header: \(object["header"]?.serializedString ?? "{}")")
            lines.append("claims: \(object["claims"]?.serializedString ?? "{}")")
            lines.append(jwt)
        }
        return lines.joined(separator: "\n")
    }

    /// The decoded claims of one document.
    static func claims(format: String, _ document: String) -> JSONValue {
        switch format {
        case "dc+sd-jwt":
            let parts = document.split(separator: "~").map(String.init)
            var claims = parts.first.flatMap { try? CompactJWS(parsing: $0).payloadJSON() } ?? [:]
            claims["disclosures"] = .array(parts.dropFirst().compactMap { part in
                Base64URL.decodeIfValid(part).flatMap { try? JSONValue.parse($0) }
            })
            return .object(claims)
        case "mso_mdoc":
            guard let bytes = Base64URL.decodeIfValid(document), let issuerSigned = try? IssuerSigned(bytes: bytes),
                let mso = try? issuerSigned.mobileSecurityObject().value
            else { return .null }
            var namespaces: JSONObject = [:]
            for (namespace, items) in issuerSigned.nameSpaces ?? [:] {
                var elements: JSONObject = [:]
                for item in items { elements[item.value.elementIdentifier] = .string(item.value.elementValue.diagnostic()) }
                namespaces[namespace] = .object(elements)
            }
            return [
                "docType": .string(mso.docType), "nameSpaces": .object(namespaces),
                "validFrom": .integer(Int64(mso.validityInfo.validFrom.date.timeIntervalSince1970)),
                "validUntil": .integer(Int64(mso.validityInfo.validUntil.date.timeIntervalSince1970)),
            ]
        default:
            return (try? CompactJWS(parsing: document).payloadJSON()).map { .object($0) } ?? .null
        }
    }
}
