import TesseraCore

/// Base64url-wrapped JSON. Kept beside the base64url codec rather than in JSON/, which the `json` fuzz target builds
/// on its own (without the JOSE error type).
///
/// The two entry points are `@inlinable` so that a caller's text type (a `Substring`, for a Disclosure) is known
/// where its bytes are read: unspecialised, the generic result types cost runtime metadata lookups per call.
extension JSONValue {
    /// Parses JSON that arrives base64url-encoded (such as a JWS header): the text is decoded into a temporary
    /// buffer and parsed from there, without an intermediate `Data`. Throws `JOSEError.invalidBase64URL` when the
    /// encoding is wrong; the JSON outcome is the returned `Result`.
    @inlinable
    public static func parse(
        base64URL text: some StringProtocol, limits: JSONLimits = .default
    ) throws(JOSEError) -> Result<JSONValue, JSONError> {
        // In place when the text is contiguous (a String or a slice of one), else from a copy.
        if let outcome = text.utf8.withContiguousStorageIfAvailable({ value(base64URL: $0, limits: limits) }) {
            return try outcome.get()
        }
        var copy = String(text)
        return try copy.withUTF8 { value(base64URL: $0, limits: limits) }.get()
    }

    /// As `parse(base64URL:limits:)` for a top-level array read as a `JSONShortArray` (a Disclosure, RFC 9901 §4.2):
    /// the outcome is nil when the JSON is not an array.
    @inlinable
    public static func parseShortArray(
        base64URL text: some StringProtocol, limits: JSONLimits = .default
    ) throws(JOSEError) -> Result<JSONShortArray?, JSONError> {
        if let outcome = text.utf8.withContiguousStorageIfAvailable({ shortArray(base64URL: $0, limits: limits) }) {
            return try outcome.get()
        }
        var copy = String(text)
        return try copy.withUTF8 { shortArray(base64URL: $0, limits: limits) }.get()
    }

    @usableFromInline
    static func value(
        base64URL encoded: UnsafeBufferPointer<UInt8>, limits: JSONLimits
    ) -> Result<Result<JSONValue, JSONError>, JOSEError> {
        Result { () throws(JOSEError) -> Result<JSONValue, JSONError> in
            try Base64URL.joseWithDecoded(utf8: encoded) { json in
                Result { () throws(JSONError) -> JSONValue in try JSONParser.parse(json, limits: limits) }
            }
        }
    }

    @usableFromInline
    static func shortArray(
        base64URL encoded: UnsafeBufferPointer<UInt8>, limits: JSONLimits
    ) -> Result<Result<JSONShortArray?, JSONError>, JOSEError> {
        Result { () throws(JOSEError) -> Result<JSONShortArray?, JSONError> in
            try Base64URL.joseWithDecoded(utf8: encoded) { json in
                Result { () throws(JSONError) -> JSONShortArray? in try JSONParser.parseShortArray(json, limits: limits) }
            }
        }
    }
}
