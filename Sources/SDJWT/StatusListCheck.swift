import Foundation
import TesseraJOSE
import TokenStatusList

/// Fetches Status List Tokens (TSL §8.1: GET on the `uri`, `Accept: application/statuslist+jwt`); injected.
public protocol StatusListFetcher: Sendable {
    /// The compact JWT served at `uri`.
    func statusListToken(at uri: URL) async throws -> String
}

/// A `StatusListFetcher` that serves the Status List Tokens it was given, by `uri`: for a Status Provider in the same
/// process (the demo), and for tests. An unknown `uri` throws `NotFound`.
public struct InMemoryStatusListFetcher: StatusListFetcher {
    /// The compact Status List Tokens, keyed by the `uri` they are served at.
    public let tokens: [String: String]

    /// No token is served at this `uri`.
    public struct NotFound: Error, Sendable {
        /// The `uri` asked for.
        public let uri: String
    }

    /// A fetcher serving `tokens`.
    public init(tokens: [String: String]) { self.tokens = tokens }

    /// The token served at `uri`.
    public func statusListToken(at uri: URL) async throws -> String {
        guard let token = tokens[uri.absoluteString] else { throw NotFound(uri: uri.absoluteString) }
        return token
    }
}

/// How the verifier checks a credential's `status` (TSL §8.3) with a JWT Status List Token signed by a key the
/// issuer key source determines.
public struct StatusListCheck: Sendable {
    /// Where the Status List Tokens come from.
    public var fetcher: any StatusListFetcher
    /// The key source for the Status List Token; nil uses the credential's issuer key source.
    public var keySource: IssuerKeySource?
    /// Whether a credential without a `status` claim is rejected.
    public var requireStatus: Bool

    /// A check fetching through `fetcher`.
    public init(fetcher: any StatusListFetcher, keySource: IssuerKeySource? = nil, requireStatus: Bool = false) {
        self.fetcher = fetcher
        self.keySource = keySource
        self.requireStatus = requireStatus
    }

    /// Fetches and validates the Status List Token for `reference` and returns the status at its index:
    /// signature (TSL §8.3 step 3), `sub` equal to `uri`, not expired, `iat` not in the future (step 4), index in
    /// range (step 6).
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
        let token: StatusListToken
        do {
            token = try StatusListToken(parsing: compact.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw SDJWTError(error)
        }
        let payload = (try? token.jwt.payloadJSON()) ?? JSONObject()
        do {
            _ = try await (keySource ?? fallback).verify(token.jwt, payload: payload, at: instant)
        } catch {
            throw .statusListTokenInvalid("signature: \(error)")
        }
        do {
            try token.validate(fetchedFrom: reference.uri, at: instant, skew: skew)
            return try token.statusList.status(at: reference.index)
        } catch {
            throw SDJWTError(error)
        }
    }
}
