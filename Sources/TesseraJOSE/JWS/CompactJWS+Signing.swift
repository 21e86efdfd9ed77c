import Foundation
import TesseraCore

extension CompactJWS {
    /// Signs `payload` (RFC 7515 §5.1). `alg` is set from the key (replacing any `alg` in `header`, in place);
    /// the other members are kept as given, in order (typ, kid, x5c …). The header is serialized compactly once,
    /// and that exact text is what is signed and sent.
    public static func sign(header: JSONObject, payload: Data, key: JWSSigningKey) throws(JOSEError) -> CompactJWS {
        var protected = header
        protected["alg"] = .string(key.algorithm.rawValue)
        try checkCritical(protected, understood: Set(protected["crit"]?.arrayValue?.compactMap(\.stringValue) ?? []))
        try checkRegisteredParameterTypes(protected)
        let headerSegment = Base64URL.encode(protected.serialized())
        let payloadSegment = Base64URL.encode(payload)
        let signingInput = headerSegment + "." + payloadSegment
        let signature = try key.sign(Array(signingInput.utf8))
        let compact = signingInput + "." + Base64URL.encode(signature)
        let utf8 = compact.utf8
        let headerEnd = utf8.index(utf8.startIndex, offsetBy: headerSegment.utf8.count)
        let signingInputEnd = utf8.index(utf8.startIndex, offsetBy: signingInput.utf8.count)
        return CompactJWS(
            compact: compact, header: protected, algorithm: key.algorithm, payload: payload, signature: signature,
            headerEnd: headerEnd, signingInputEnd: signingInputEnd
        )
    }

    /// Signs a JSON object payload (a JWT Claims Set), serialized compactly in member order.
    public static func sign(header: JSONObject, claims: JSONObject, key: JWSSigningKey) throws(JOSEError) -> CompactJWS {
        try sign(header: header, payload: claims.serialized(), key: key)
    }
}
