import Foundation

/// A JWS in the compact serialization (RFC 7515 §7.1): `BASE64URL(header) . BASE64URL(payload) . BASE64URL(sig)`.
///
/// Parsing keeps the text exactly as received: the signing input is the ASCII of the first two segments as they
/// arrived, never a re-serialization (RFC 7515 §5.2 step 8). `alg: none` and unknown algorithms are rejected at
/// parse time, as is a `crit` naming an extension the caller did not declare understood.
public struct CompactJWS: Sendable {
    /// The compact serialization as received (or as produced by `sign`).
    public let compact: String
    /// The decoded JWS Protected Header.
    public let header: JSONObject
    /// The header's `alg`.
    public let algorithm: JOSEAlgorithm
    /// The decoded payload bytes.
    public let payload: Data
    /// The decoded JWS Signature.
    public let signature: Data
    /// End of the payload segment (the second dot) in `compact`.
    private let signingInputEnd: String.Index
    /// End of the header segment (the first dot) in `compact`.
    private let headerEnd: String.Index
    /// The limits the JWS was parsed with, applied again by `payloadJSON()` and `x5cCertificates()`.
    let limits: JOSELimits

    /// Header parameters defined by RFC 7515 §4.1, RFC 7516 §4.1 and RFC 7518 §4.6–4.8: `crit` must not list
    /// them (RFC 7515 §4.1.11).
    static let registeredHeaderParameters: Set<String> = [
        "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
        "enc", "zip", "epk", "apu", "apv", "iv", "tag", "p2s", "p2c",
    ]

    /// Parses a compact JWS.
    ///
    /// - Parameters:
    ///   - understoodCriticalParameters: extension header parameters the caller processes; a `crit` listing any
    ///     other name is rejected (RFC 7515 §4.1.11). Empty by default: this library itself implements none.
    public init(
        parsing text: some StringProtocol,
        limits: JOSELimits = .default,
        understoodCriticalParameters: Set<String> = []
    ) throws(JOSEError) {
        let compact = String(text)
        guard compact.utf8.count <= limits.maxCompactLength else {
            throw .compactTooLong(length: compact.utf8.count, limit: limits.maxCompactLength)
        }
        let dots = CompactSegments.dotIndices(in: compact)
        guard dots.count == 2 else { throw .malformedCompact }
        let headerEnd = dots[0]
        let signingInputEnd = dots[1]
        let utf8 = compact.utf8
        let headerSegment = utf8[utf8.startIndex..<headerEnd]
        let payloadSegment = utf8[utf8.index(after: headerEnd)..<signingInputEnd]
        let signatureSegment = utf8[utf8.index(after: signingInputEnd)...]

        let header = try CompactSegments.decodeHeader(headerSegment, limits: limits.json)
        let algorithm = try Self.algorithm(in: header)
        try Self.checkCritical(header, understood: understoodCriticalParameters)
        try Self.checkRegisteredParameterTypes(header)

        self.compact = compact
        self.header = header
        self.algorithm = algorithm
        self.payload = try CompactSegments.decode(payloadSegment)
        self.signature = try CompactSegments.decode(signatureSegment)
        self.signingInputEnd = signingInputEnd
        self.headerEnd = headerEnd
        self.limits = limits
    }

    init(
        compact: String, header: JSONObject, algorithm: JOSEAlgorithm, payload: Data, signature: Data,
        headerEnd: String.Index, signingInputEnd: String.Index
    ) {
        self.compact = compact
        self.header = header
        self.algorithm = algorithm
        self.payload = payload
        self.signature = signature
        self.headerEnd = headerEnd
        self.signingInputEnd = signingInputEnd
        self.limits = .default
    }

    /// Exactly `<b64 header>.<b64 payload>` as received: what the signature covers.
    public var signingInput: Substring { compact[..<signingInputEnd] }

    /// The base64url header segment as received.
    public var protectedHeaderSegment: Substring { compact[..<headerEnd] }

    /// The base64url payload segment as received.
    public var payloadSegment: Substring { compact[compact.index(after: headerEnd)..<signingInputEnd] }

    /// `kid`, when the header has one.
    public var keyID: String? { header["kid"]?.stringValue }

    /// `typ`, when the header has one.
    public var type: String? { header["typ"]?.stringValue }

    /// Verifies the signature over `signingInput` with `key`. The header `alg` must fit the key type; ECDSA
    /// signatures must be R || S (DER is rejected with `derSignatureRejected`).
    public func verify(with key: JWSVerificationKey) throws(JOSEError) {
        // Over the received bytes in place (no copy of the signing input).
        let input = signingInput.utf8
        if let result = input.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(JOSEError) in try key.verify(signature, over: UnsafeRawBufferPointer(buffer), algorithm: algorithm) }
        }) {
            return try result.get()
        }
        try key.verify(signature, over: Array(input), algorithm: algorithm)
    }

    /// The payload parsed as a JSON object (a JWT Claims Set, RFC 7519 §7.2 step 10).
    public func payloadJSON() throws(JOSEError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONValue.parse(payload, limits: limits.json)
        } catch {
            throw .invalidPayload(error)
        }
        guard let object = value.objectValue else { throw .payloadNotObject }
        return object
    }

    // MARK: Header rules

    /// `alg` present, a string, not `none`, and implemented (RFC 7515 §4.1.1, RFC 8725 §3.1).
    static func algorithm(in header: JSONObject) throws(JOSEError) -> JOSEAlgorithm {
        guard let value = header["alg"], let name = value.stringValue else { throw .missingAlgorithm }
        if name.lowercased() == "none" { throw .algorithmNone }
        guard let algorithm = JOSEAlgorithm(rawValue: name) else { throw .unsupportedAlgorithm(name) }
        return algorithm
    }

    /// RFC 7515 §4.1.11: `crit` is a non-empty array of unique strings, each naming an extension parameter that
    /// is present in the header and not registered by JWS/JWE/JWA; every name must be understood.
    static func checkCritical(_ header: JSONObject, understood: Set<String>) throws(JOSEError) {
        guard let crit = header["crit"] else { return }
        guard let names = crit.arrayValue else { throw .invalidCritical("not an array") }
        guard !names.isEmpty else { throw .invalidCritical("empty array") }
        var seen = Set<String>()
        var unsupported: [String] = []
        for entry in names {
            guard let name = entry.stringValue else { throw .invalidCritical("holds a non-string") }
            guard seen.insert(name).inserted else { throw .invalidCritical("repeats \"\(name)\"") }
            guard !registeredHeaderParameters.contains(name) else {
                throw .invalidCritical("lists the registered parameter \"\(name)\"")
            }
            guard header.contains(name) else { throw .invalidCritical("lists \"\(name)\", which is absent") }
            if !understood.contains(name) { unsupported.append(name) }
        }
        guard unsupported.isEmpty else { throw .unsupportedCritical(unsupported) }
    }

    /// Registered parameters that this library reads must have their registered JSON type (RFC 7515 §4.1).
    /// `b64: false` (RFC 7797 unencoded payload) is not supported: it would change the signing input.
    static func checkRegisteredParameterTypes(_ header: JSONObject) throws(JOSEError) {
        for name in ["kid", "typ", "cty", "jku", "x5u", "x5t", "x5t#S256"] {
            if let value = header[name], value.stringValue == nil { throw .invalidHeaderParameter(name) }
        }
        if let value = header["jwk"], value.objectValue == nil { throw .invalidHeaderParameter("jwk") }
        if let value = header["x5c"], value.arrayValue == nil { throw .invalidHeaderParameter("x5c") }
        if let value = header["b64"], value != .bool(true) { throw .invalidHeaderParameter("b64") }
    }
}
