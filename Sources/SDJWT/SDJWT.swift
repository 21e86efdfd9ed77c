import Foundation
import TesseraJOSE

/// An SD-JWT or SD-JWT+KB (§4): the Issuer-signed JWT, the Disclosures, and optionally a Key Binding JWT.
///
/// Everything is kept as received: `sdHashInput` is the exact `<Issuer-signed JWT>~<D1>~…~<Dn>~` text that
/// `sd_hash` covers (§4.3.1), and each Disclosure keeps its exact base64url string.
public struct SDJWT: Sendable {
    /// How the SD-JWT was serialized.
    public enum Serialization: Sendable, Hashable {
        /// `~`-separated compact form (§4).
        case compact
        /// JWS JSON serialization, flattened (§8.1).
        case jsonFlattened
        /// JWS JSON serialization, general (§8.1); the Disclosures and KB-JWT sit with the first signature.
        case jsonGeneral
    }

    /// The Issuer-signed JWT (for the JSON serialization: the first signature, as `<protected>.<payload>.<sig>`).
    public let issuerSignedJWT: CompactJWS
    /// Further signatures of the general JSON serialization, each as a compact JWS over the same payload.
    public let additionalIssuerSignatures: [CompactJWS]
    /// The Disclosures in the order presented.
    public let disclosures: [Disclosure]
    /// The Key Binding JWT of an SD-JWT+KB.
    public let keyBindingJWT: CompactJWS?
    /// The Issuer-signed JWT payload.
    public let payload: JSONObject
    /// `<Issuer-signed JWT>~<Disclosure 1>~…~<Disclosure N>~`, exactly as received: the input of `sd_hash`.
    public var sdHashInput: String { String(sdHashInputText) }
    /// `sdHashInput` as a slice of the parsed text (not copied): what the verifier hashes.
    let sdHashInputText: Substring
    public let serialization: Serialization

    /// The compact serialization: `sdHashInput` followed by the KB-JWT, if any.
    public var compact: String { String(sdHashInputText) + (keyBindingJWT?.compact ?? "") }

    /// `_sd_alg` of the payload (sha-256 when absent).
    public func hashAlgorithm() throws(SDJWTError) -> SDHashAlgorithm { try SDHashAlgorithm.of(payload: payload) }

    /// The payload with all of this SD-JWT's Disclosures applied (§7.1 step 3, `_sd`, `_sd_alg` and undisclosed
    /// array elements removed), without checking any signature or validity: for holders (what their credential
    /// says) and for inspection. Never treat the result as verified; `SDJWTVerifier` does that. Throws the first
    /// §7.1 rule the Disclosures break.
    public func unverifiedClaims(limits: SDJWTLimits = .default) throws(SDJWTError) -> JSONObject {
        var processor = DisclosureProcessor(
            disclosures: disclosures, algorithm: try hashAlgorithm(), maxDepth: limits.maxDepth, checkVCClaims: false)
        let claims = processor.process(payload: payload)
        if let first = processor.errors.first { throw first }
        return claims
    }

    /// Parses the compact (`~`) form, or the JSON serialization (§8) when the text starts with `{`.
    public init(parsing text: some StringProtocol, limits: SDJWTLimits = .default) throws(SDJWTError) {
        try self.init(parsingText: String(text), limits: limits)
    }

    /// The parser proper, on a concrete `String` (scanned as UTF-8: `~` and `{` are ASCII, so every boundary
    /// found is a valid index, and no grapheme breaking is needed).
    private init(parsingText input: String, limits: SDJWTLimits) throws(SDJWTError) {
        var text = input
        text.makeContiguousUTF8()
        let utf8 = text.utf8
        guard utf8.count <= limits.maxLength else { throw .tooLarge(length: utf8.count, limit: limits.maxLength) }
        if utf8.first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "{") {
            self = try Self.parseJSON(Array(utf8), limits: limits)
            return
        }
        // Offsets of every `~`, found on the contiguous UTF-8 bytes.
        let scanned = text.withUTF8 { bytes in Result { () throws(SDJWTError) -> [Int] in try Self.tildeOffsets(bytes, limits: limits) } }
        let offsets = try scanned.get()
        guard let firstOffset = offsets.first, let lastOffset = offsets.last else {
            throw .malformedSerialization("no ~ after the Issuer-signed JWT")
        }
        // `~` is ASCII, so each offset is a valid index (computed in constant time on native UTF-8).
        func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        // A helper, not `let jwt; do { jwt = try … } catch { throw … }`: that shape leaked the parsed JWS when a
        // later step threw (LeakSanitizer, fuzz target sdjwt; Swift 6.3 typed throws).
        let jwt = try Self.issuerSignedJWT(text[..<index(firstOffset)], limits: limits)
        var disclosures: [Disclosure] = []
        disclosures.reserveCapacity(offsets.count - 1)
        var start = firstOffset + 1
        for end in offsets.dropFirst() {
            guard start < end else { throw .malformedSerialization("empty Disclosure between ~~") }
            disclosures.append(try Disclosure(parsing: text[index(start)..<index(end)], limits: limits.jose.json))
            start = end + 1
        }
        let afterLast = index(lastOffset + 1)
        let keyBindingJWT = afterLast < text.endIndex ? try Self.keyBindingJWT(text[afterLast...], limits: limits) : nil
        try self.init(
            issuerSignedJWT: jwt, additionalIssuerSignatures: [], disclosures: disclosures,
            keyBindingJWT: keyBindingJWT, sdHashInput: text[..<afterLast], serialization: .compact)
    }

    /// Offsets of every `~` in `bytes`, found with `memchr`: counted first (checked against the Disclosure limit
    /// before anything is stored), then collected into an array of exactly that size.
    private static func tildeOffsets(_ bytes: UnsafeBufferPointer<UInt8>, limits: SDJWTLimits) throws(SDJWTError) -> [Int] {
        guard let base = bytes.baseAddress else { return [] }
        func forEachTilde(_ body: (Int) -> Void) {
            var offset = 0
            while offset < bytes.count, let hit = memchr(base + offset, Int32(UInt8(ascii: "~")), bytes.count - offset) {
                let position = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                body(position)
                offset = position + 1
            }
        }
        var count = 0
        forEachTilde { _ in count += 1 }
        guard count <= limits.maxDisclosures + 1 else {
            throw .tooManyDisclosures(count: count - 1, limit: limits.maxDisclosures)
        }
        var found: [Int] = []
        found.reserveCapacity(count)
        forEachTilde { found.append($0) }
        return found
    }

    private static func issuerSignedJWT(_ text: some StringProtocol, limits: SDJWTLimits) throws(SDJWTError) -> CompactJWS {
        do {
            return try CompactJWS(parsing: text, limits: limits.jose)
        } catch {
            throw .malformedIssuerSignedJWT(error)
        }
    }

    private static func keyBindingJWT(_ text: some StringProtocol, limits: SDJWTLimits) throws(SDJWTError) -> CompactJWS {
        do {
            return try CompactJWS(parsing: text, limits: limits.jose)
        } catch {
            throw .malformedKeyBindingJWT(error)
        }
    }

    /// An SD-JWT from its parts (as built by the issuer or the holder).
    public init(issuerSignedJWT: CompactJWS, disclosures: [Disclosure], keyBindingJWT: CompactJWS? = nil) throws(SDJWTError) {
        var input = issuerSignedJWT.compact + "~"
        for disclosure in disclosures { input += disclosure.encoded + "~" }
        try self.init(
            issuerSignedJWT: issuerSignedJWT, additionalIssuerSignatures: [], disclosures: disclosures,
            keyBindingJWT: keyBindingJWT, sdHashInput: input[...], serialization: .compact)
    }

    init(
        issuerSignedJWT: CompactJWS, additionalIssuerSignatures: [CompactJWS], disclosures: [Disclosure],
        keyBindingJWT: CompactJWS?, sdHashInput: Substring, serialization: Serialization
    ) throws(SDJWTError) {
        do {
            self.payload = try issuerSignedJWT.payloadJSON()
        } catch {
            throw .malformedPayload(error)
        }
        self.issuerSignedJWT = issuerSignedJWT
        self.additionalIssuerSignatures = additionalIssuerSignatures
        self.disclosures = disclosures
        self.keyBindingJWT = keyBindingJWT
        self.sdHashInputText = sdHashInput
        self.serialization = serialization
    }

    /// The same SD-JWT with a (new) KB-JWT.
    func withKeyBinding(_ kbJWT: CompactJWS?) -> SDJWT {
        // The parts were valid when `self` was built; only the KB-JWT changes.
        SDJWT(copying: self, keyBindingJWT: kbJWT)
    }

    private init(copying other: SDJWT, keyBindingJWT: CompactJWS?) {
        issuerSignedJWT = other.issuerSignedJWT
        additionalIssuerSignatures = other.additionalIssuerSignatures
        disclosures = other.disclosures
        self.keyBindingJWT = keyBindingJWT
        payload = other.payload
        sdHashInputText = other.sdHashInputText
        serialization = other.serialization
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
