import Foundation
import TesseraJOSE

/// Fetches Status List Tokens (TSL §8.1: GET on the `uri`, `Accept: application/statuslist+jwt`); injected.
public protocol StatusListFetcher: Sendable {
    /// The compact JWT served at `uri`.
    func statusListToken(at uri: URL) async throws -> String
}

/// A Status List Token in JWT form (TSL §5.1): `typ: statuslist+jwt`; claims `sub` (the URI it is served at),
/// `iat`, optional `exp` and `ttl`, and `status_list`.
public struct StatusListToken: Sendable {
    public static let type = "statuslist+jwt"

    public let jwt: CompactJWS
    public let subject: String
    public let issuedAt: Date
    public let expiresAt: Date?
    public let statusList: StatusList

    /// Signs a Status List Token for `list`, to be served at `subject`.
    public static func issue(
        _ list: StatusList, subject: String, issuedAt: Date, expiresAt: Date? = nil, timeToLive: Int? = nil,
        key: JWSSigningKey, header: JSONObject = JSONObject()
    ) throws(SDJWTError) -> StatusListToken {
        var protected = header
        protected["typ"] = .string(type)
        var claims: JSONObject = [
            "sub": .string(subject),
            "iat": .integer(Int64(issuedAt.timeIntervalSince1970.rounded(.down))),
        ]
        if let expiresAt { claims["exp"] = .integer(Int64(expiresAt.timeIntervalSince1970.rounded(.down))) }
        if let timeToLive { claims["ttl"] = .integer(Int64(timeToLive)) }
        claims["status_list"] = .object(try list.jsonObject())
        let jwt: CompactJWS
        do {
            jwt = try CompactJWS.sign(header: protected, claims: claims, key: key)
        } catch {
            throw .signingFailed(error)
        }
        return try StatusListToken(jwt: jwt)
    }

    /// Parses a compact Status List Token and its claims (the signature is checked by `StatusListCheck`).
    public init(parsing compact: some StringProtocol, limits: JOSELimits = .default) throws(SDJWTError) {
        let jwt: CompactJWS
        do {
            jwt = try CompactJWS(parsing: compact, limits: limits)
        } catch {
            throw .statusListTokenInvalid("not a compact JWS (\(error))")
        }
        try self.init(jwt: jwt)
    }

    init(jwt: CompactJWS) throws(SDJWTError) {
        guard jwt.type == Self.type else { throw .statusListTokenInvalid("typ is not \(Self.type)") }
        let claims: JSONObject
        do {
            claims = try jwt.payloadJSON()
        } catch {
            throw .statusListTokenInvalid("payload is not a JSON object")
        }
        guard let subject = claims["sub"]?.stringValue else { throw .statusListTokenInvalid("sub missing") }
        guard let iat = claims["iat"]?.doubleValue else { throw .statusListTokenInvalid("iat missing") }
        var expiresAt: Date?
        if let exp = claims["exp"] {
            guard let seconds = exp.doubleValue else { throw .statusListTokenInvalid("exp is not a NumericDate") }
            expiresAt = Date(timeIntervalSince1970: seconds)
        }
        guard let list = claims["status_list"]?.objectValue else { throw .statusListTokenInvalid("status_list missing") }
        self.jwt = jwt
        self.subject = subject
        self.issuedAt = Date(timeIntervalSince1970: iat)
        self.expiresAt = expiresAt
        self.statusList = try StatusList(json: list)
    }
}

/// How the verifier checks a credential's `status` (TSL §8.3).
public struct StatusListCheck: Sendable {
    public var fetcher: any StatusListFetcher
    /// The key source for the Status List Token; nil uses the credential's issuer key source.
    public var keySource: IssuerKeySource?
    /// Whether a credential without a `status` claim is rejected.
    public var requireStatus: Bool

    public init(fetcher: any StatusListFetcher, keySource: IssuerKeySource? = nil, requireStatus: Bool = false) {
        self.fetcher = fetcher
        self.keySource = keySource
        self.requireStatus = requireStatus
    }

    /// Fetches and validates the Status List Token for `reference` and returns the status at its index:
    /// signature (TSL §8.3 step 3), `sub` equal to `uri` (step 4), not expired (step 5), index in range (step 7).
    public func status(
        of reference: StatusListReference, keySource fallback: IssuerKeySource, at instant: Date, skew: TimeInterval
    ) async throws(SDJWTError) -> UInt8 {
        guard let url = URL(string: reference.uri), url.scheme == "https" || url.scheme == "http" else {
            throw .statusClaimMalformed("uri is not an http(s) URL")
        }
        let compact: String
        do {
            compact = try await fetcher.statusListToken(at: url)
        } catch {
            throw .statusListFetchFailed(reference.uri)
        }
        let token = try StatusListToken(parsing: compact.trimmingCharacters(in: .whitespacesAndNewlines))
        let payload = (try? token.jwt.payloadJSON()) ?? JSONObject()
        do {
            _ = try await (keySource ?? fallback).verify(token.jwt, payload: payload, at: instant)
        } catch {
            throw .statusListTokenInvalid("signature: \(error)")
        }
        guard token.subject == reference.uri else { throw .statusListTokenInvalid("sub is not the referenced uri") }
        if let expiresAt = token.expiresAt, instant.timeIntervalSince(expiresAt) > skew {
            throw .statusListTokenInvalid("expired")
        }
        if token.issuedAt.timeIntervalSince(instant) > skew { throw .statusListTokenInvalid("iat in the future") }
        return try token.statusList.status(at: reference.index)
    }
}
