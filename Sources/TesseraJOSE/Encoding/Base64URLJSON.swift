/// Base64url-wrapped JSON. Kept beside the base64url codec rather than in JSON/, which the `json` fuzz target builds
/// on its own (without the JOSE error type).
extension JSONValue {
    /// Parses JSON that arrives base64url-encoded (such as a Disclosure, RFC 9901 §4.2): the text is decoded into
    /// a temporary buffer and parsed from there, without an intermediate `Data`. Throws
    /// `JOSEError.invalidBase64URL` when the encoding is wrong; the JSON outcome is the returned `Result`.
    public static func parse(
        base64URL text: some StringProtocol, limits: JSONLimits = .default
    ) throws(JOSEError) -> Result<JSONValue, JSONError> {
        func parse(_ encoded: UnsafeBufferPointer<UInt8>) -> Result<Result<JSONValue, JSONError>, JOSEError> {
            Result { () throws(JOSEError) -> Result<JSONValue, JSONError> in
                try Base64URL.withDecoded(utf8: encoded) { json in
                    Result { () throws(JSONError) -> JSONValue in try JSONParser.parse(json, limits: limits) }
                }
            }
        }
        // In place when the text is contiguous (a String or a slice of one, such as a Disclosure in an SD-JWT).
        if let decoded = text.utf8.withContiguousStorageIfAvailable(parse) { return try decoded.get() }
        var copy = String(text)
        return try copy.withUTF8(parse).get()
    }
}
