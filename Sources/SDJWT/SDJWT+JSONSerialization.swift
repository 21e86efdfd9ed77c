import Foundation
import TesseraJOSE

extension SDJWT {
    /// The JWS JSON serialization of §8.1: flattened (`protected`, `payload`, `signature`, `header`) or general
    /// (`payload`, `signatures: [{protected, signature, header}]`). The Disclosures (`disclosures`) and the KB-JWT
    /// (`kb_jwt`) sit in the unprotected `header` of the (first) signature. Each signature becomes a compact JWS
    /// `<protected>.<payload>.<signature>` built from the received base64url members, unchanged; `sd_hash` is taken
    /// over the first one followed by `~<D1>~…~<Dn>~` (§8.1).
    static func parseJSON(_ bytes: [UInt8], limits: SDJWTLimits) throws(SDJWTError) -> SDJWT {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, limits: limits.jose.json)
        } catch {
            throw .malformedSerialization("JSON serialization is not valid JSON (\(error))")
        }
        guard let object = value.objectValue else { throw .malformedSerialization("JSON serialization is not an object") }
        guard let payload = object["payload"]?.stringValue else { throw .malformedSerialization("no payload string") }

        let signatureObjects: [JSONObject]
        let serialization: Serialization
        if let signatures = object["signatures"] {
            guard object["protected"] == nil, object["signature"] == nil, object["header"] == nil else {
                throw .malformedSerialization("general serialization with flattened members")
            }
            guard let array = signatures.arrayValue, !array.isEmpty else {
                throw .malformedSerialization("signatures is not a non-empty array")
            }
            var objects: [JSONObject] = []
            for entry in array {
                guard let entryObject = entry.objectValue else { throw .malformedSerialization("signature is not an object") }
                objects.append(entryObject)
            }
            signatureObjects = objects
            serialization = .jsonGeneral
        } else {
            signatureObjects = [object]
            serialization = .jsonFlattened
        }

        var jwts: [CompactJWS] = []
        for (position, signature) in signatureObjects.enumerated() {
            guard let protected = signature["protected"]?.stringValue, let sig = signature["signature"]?.stringValue else {
                throw .malformedSerialization("signature \(position) lacks protected or signature")
            }
            if let header = signature["header"], header.objectValue == nil {
                throw .malformedSerialization("unprotected header is not an object")
            }
            if position > 0, signature["header"]?["disclosures"] != nil || signature["header"]?["kb_jwt"] != nil {
                throw .malformedSerialization("disclosures or kb_jwt outside the first signature's header")
            }
            do {
                jwts.append(try CompactJWS(parsing: protected + "." + payload + "." + sig, limits: limits.jose))
            } catch {
                throw .malformedIssuerSignedJWT(error)
            }
        }
        let header = signatureObjects[0]["header"]?.objectValue ?? JSONObject()

        var disclosures: [Disclosure] = []
        if let list = header["disclosures"] {
            guard let entries = list.arrayValue else { throw .malformedSerialization("disclosures is not an array") }
            guard entries.count <= limits.maxDisclosures else {
                throw .tooManyDisclosures(count: entries.count, limit: limits.maxDisclosures)
            }
            for entry in entries {
                guard let text = entry.stringValue, !text.isEmpty else {
                    throw .malformedSerialization("a Disclosure is not a non-empty string")
                }
                disclosures.append(try Disclosure(parsing: text, limits: limits.jose.json))
            }
        }
        var keyBindingJWT: CompactJWS?
        if let kb = header["kb_jwt"] {
            guard let text = kb.stringValue else { throw .malformedSerialization("kb_jwt is not a string") }
            do {
                keyBindingJWT = try CompactJWS(parsing: text, limits: limits.jose)
            } catch {
                throw .malformedKeyBindingJWT(error)
            }
        }
        var input = jwts[0].compact + "~"
        for disclosure in disclosures { input += disclosure.encoded + "~" }
        return try SDJWT(
            issuerSignedJWT: jwts[0], additionalIssuerSignatures: Array(jwts.dropFirst()), disclosures: disclosures,
            keyBindingJWT: keyBindingJWT, sdHashInput: input[...], serialization: serialization)
    }
}
