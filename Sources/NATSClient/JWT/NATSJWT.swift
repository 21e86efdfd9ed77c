import Crypto
import Foundation
import TesseraCore

/// A NATS JWT v2 as received: the exact string (what servers and creds files carry) and its verified claims.
public struct NATSJWT<Claims: NATSClaims>: Sendable {
    /// The compact JWT exactly as it was given (never re-encoded).
    public let string: String
    public let claims: Claims

    /// Longest JWT accepted for decoding; real ones are a few kilobytes.
    public static var maxLength: Int { 64 * 1024 }

    /// The header every NATS JWT v2 carries (`alg` "ed25519-nkey": Ed25519 by an nkey over `header.payload`).
    static var header: String { Base64URL.encode(Data(#"{"typ":"JWT","alg":"ed25519-nkey"}"#.utf8)) }

    /// Decodes and verifies `string`: the header is `typ` JWT with `alg` ed25519-nkey, the signature verifies under
    /// `iss`, `iss` and `sub` are nkeys of the kinds these claims require and `nats.type`/`nats.version` match.
    /// Expiry is not checked here: use `validate(at:)`.
    public init(_ string: String) throws(NATSError) {
        guard string.utf8.count <= Self.maxLength else { throw .malformedJWT("longer than \(Self.maxLength) bytes") }
        let parts = string.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerJSON = Base64URL.decodeIfValid(parts[0]), let payload = Base64URL.decodeIfValid(parts[1]),
            let signature = Base64URL.decodeIfValid(parts[2])
        else { throw .malformedJWT("not three base64url parts") }
        guard let header = try? JSONDecoder().decode(JWTHeader.self, from: headerJSON) else {
            throw .malformedJWT("header is not JSON")
        }
        guard header.typ.uppercased() == "JWT", header.alg.lowercased() == "ed25519-nkey" else {
            throw .malformedJWT("unsupported typ/alg \(header.typ)/\(header.alg)")
        }
        let claims: Claims
        do {
            claims = try JSONDecoder().decode(Claims.self, from: payload)
        } catch {
            throw .malformedJWT("claims are not \(Claims.Body.claimType) claims")
        }
        guard claims.nats.type == Claims.Body.claimType, claims.nats.version == 2 else {
            throw .malformedJWT("nats.type/version is \(claims.nats.type)/\(claims.nats.version)")
        }
        let issuer = try NKeyPair(publicKey: claims.iss)
        guard Claims.issuerTypes.contains(issuer.type) else { throw .invalidPrefix(expected: "issuer of \(Claims.Body.claimType)") }
        _ = try NKeyPair(publicKey: claims.sub, expected: Claims.subjectType)
        // The signature covers the first two parts exactly as received.
        let signed = Data(string.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard issuer.verify(signature, for: signed) else { throw .invalidSignature }
        self.string = string
        self.claims = claims
    }

    /// `exp` and `nbf` against `instant` (no leeway: the server allows none either).
    public func validate(at instant: Date) throws(NATSError) {
        let now = Int64(instant.timeIntervalSince1970)
        if let exp = claims.exp, exp != 0, now >= exp { throw .jwtExpired }
        if let nbf = claims.nbf, nbf != 0, now < nbf { throw .jwtNotYetValid }
    }
}

/// The JOSE header of a NATS JWT.
struct JWTHeader: Decodable {
    let typ: String
    let alg: String
}

extension NATSClaims {
    /// Signs these claims with `issuer` (whose type must be one `Self.issuerTypes` allows), setting `iss`, `iat` (from
    /// `clock`) and `jti`, and returns the compact JWT.
    ///
    /// `jti` is base32 (no padding) of SHA-256 over the claims serialised with an empty `jti`. The Go library hashes a
    /// subset of the claims with SHA-512/256; nothing recomputes `jti` (servers and `nats-py` treat it as an opaque
    /// identifier), so the choice only needs to be unique and reproducible.
    public func encode(signedBy issuer: NKeyPair, clock: some TesseraClock) throws(NATSError) -> String {
        guard Self.issuerTypes.contains(issuer.type), issuer.canSign else {
            throw .invalidPrefix(expected: Self.issuerTypes.map(\.description).joined(separator: "/") + " seed")
        }
        _ = try NKeyPair(publicKey: sub, expected: Self.subjectType)
        var claims = self
        claims.iss = issuer.publicKeyString
        claims.iat = Int64(clock.now().timeIntervalSince1970)
        claims.jti = ""
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let unidentified = try? encoder.encode(claims) else { throw .malformedJWT("claims do not encode") }
        claims.jti = Base32.encode(Array(SHA256.hash(data: unidentified)))
        guard let payload = try? encoder.encode(claims) else { throw .malformedJWT("claims do not encode") }
        let signingInput = NATSJWT<Self>.header + "." + Base64URL.encode(payload)
        let signature = try issuer.sign(Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
