import Foundation
import TesseraJOSE
import X509

/// Fetches JWT VC Issuer Metadata and JWK Sets over HTTPS (injected, so tests and offline callers supply their own).
public protocol JWTVCIssuerMetadataFetcher: Sendable {
    /// The body of a GET on `url` (a JSON document).
    func fetch(_ url: URL) async throws -> Data
}

/// Where the verifier takes the issuer's public key from (SD-JWT VC §3.5).
public enum IssuerKeySource: Sendable {
    /// Fixed keys: valid when a signature of the Issuer-signed JWT verifies with one of them.
    case keys([JWSVerificationKey])
    /// The `x5c` header chain, validated (RFC 5280, TesseraTrust x5c profile) against these anchors; with a cache,
    /// a chain that validated before is taken from it (a service seeing the same issuers on every response).
    case x5c(anchors: [Certificate], cache: X5CChainCache? = nil)
    /// JWT VC Issuer Metadata at `<iss host>/.well-known/jwt-vc-issuer<iss path>` (SD-JWT VC §5): `jwks` or
    /// `jwks_uri`, the key chosen by the header `kid` (or the only key).
    case issuerMetadata(any JWTVCIssuerMetadataFetcher)
    /// `x5c` when the header has one, the issuer metadata otherwise.
    case x5cOrIssuerMetadata(anchors: [Certificate], fetcher: any JWTVCIssuerMetadataFetcher)

    /// One fixed key.
    public static func key(_ key: JWSVerificationKey) -> IssuerKeySource { .keys([key]) }

    /// Verifies the signature of `jwt` (or, for `.keys`, of one of `jwt` and `others`) with the key this source
    /// determines. Returns the validated leaf certificate for `x5c`.
    func verify(
        _ jwt: CompactJWS, others: [CompactJWS] = [], payload: JSONObject, at instant: Date
    ) async throws(SDJWTError) -> Certificate? {
        switch self {
        case .keys(let keys):
            guard !keys.isEmpty else { throw .issuerKeyUnresolved("no issuer key configured") }
            var firstError: JOSEError?
            // The Issuer-signed JWT first, then the others (-1 stands for `jwt`; no concatenated array).
            for position in -1..<others.count {
                let candidate = position < 0 ? jwt : others[position]
                for key in keys {
                    do {
                        try candidate.verify(with: key)
                        return nil
                    } catch {
                        if firstError == nil { firstError = error }
                    }
                }
            }
            throw .issuerSignatureInvalid(firstError ?? .invalidSignature)
        case .x5c(let anchors, let cache):
            return try await Self.verifyX5C(jwt, anchors: anchors, cache: cache, at: instant)
        case .issuerMetadata(let fetcher):
            let key = try await JWTVCIssuerMetadata.resolveKey(for: jwt, payload: payload, fetcher: fetcher)
            do {
                try jwt.verify(with: key)
            } catch {
                throw .issuerSignatureInvalid(error)
            }
            return nil
        case .x5cOrIssuerMetadata(let anchors, let fetcher):
            if jwt.header["x5c"] != nil { return try await Self.verifyX5C(jwt, anchors: anchors, at: instant) }
            return try await IssuerKeySource.issuerMetadata(fetcher).verify(jwt, payload: payload, at: instant)
        }
    }

    private static func verifyX5C(
        _ jwt: CompactJWS, anchors: [Certificate], cache: X5CChainCache? = nil, at instant: Date
    ) async throws(SDJWTError) -> Certificate {
        guard jwt.header["x5c"] != nil else { throw .issuerKeyUnresolved("no x5c header") }
        do {
            return try await jwt.verifyX5C(anchors: anchors, at: instant, cache: cache)
        } catch {
            switch error {
            case .x5cChainInvalid(let failures): throw .x5cChainInvalid(failures)
            case .invalidX5C(let reason): throw .x5cChainInvalid([reason])
            default: throw .issuerSignatureInvalid(error)
            }
        }
    }
}

/// JWT VC Issuer Metadata (SD-JWT VC §5): `{"issuer": iss, "jwks": {...}}` or `{"issuer": iss, "jwks_uri": url}`.
public enum JWTVCIssuerMetadata {
    /// `https://host[:port]/.well-known/jwt-vc-issuer[/path]` for an `iss` of `https://host[:port][/path]` (§5.1).
    public static func metadataURL(forIssuer issuer: String) throws(SDJWTError) -> URL {
        guard let components = URLComponents(string: issuer), components.scheme == "https",
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil
        else { throw .issuerMetadataInvalid("iss is not an https URL without query or fragment") }
        var path = components.percentEncodedPath
        if path == "/" { path = "" }
        var built = URLComponents()
        built.scheme = "https"
        built.host = host
        built.port = components.port
        built.percentEncodedPath = "/.well-known/jwt-vc-issuer" + path
        guard let url = built.url else { throw .issuerMetadataInvalid("cannot form the metadata URL") }
        return url
    }

    /// Fetches the metadata for the payload's `iss` and returns the key matching the header `kid` (or the only one).
    static func resolveKey(
        for jwt: CompactJWS, payload: JSONObject, fetcher: any JWTVCIssuerMetadataFetcher
    ) async throws(SDJWTError) -> JWSVerificationKey {
        guard let issuer = payload["iss"]?.stringValue else { throw .issuerKeyUnresolved("no iss claim") }
        let url = try metadataURL(forIssuer: issuer)
        let metadata = try await fetchObject(url, fetcher: fetcher)
        guard metadata["issuer"]?.stringValue == issuer else {
            throw .issuerMetadataInvalid("issuer does not equal iss")
        }
        let jwks: JSONObject
        switch (metadata["jwks"], metadata["jwks_uri"]) {
        case (let inline?, nil):
            guard let object = inline.objectValue else { throw .issuerMetadataInvalid("jwks is not an object") }
            jwks = object
        case (nil, let uri?):
            guard let text = uri.stringValue, let jwksURL = URL(string: text), jwksURL.scheme == "https" else {
                throw .issuerMetadataInvalid("jwks_uri is not an https URL")
            }
            jwks = try await fetchObject(jwksURL, fetcher: fetcher)
        default:
            throw .issuerMetadataInvalid("exactly one of jwks and jwks_uri is required")
        }
        guard let keys = jwks["keys"]?.arrayValue else { throw .issuerMetadataInvalid("JWK Set has no keys array") }
        var candidates: [JWK] = []
        for entry in keys {
            guard let object = entry.objectValue, let jwk = try? JWK(json: object) else { continue }
            if let kid = jwt.keyID {
                if jwk.kid == kid { candidates.append(jwk) }
            } else {
                candidates.append(jwk)
            }
        }
        guard candidates.count == 1, let jwk = candidates.first else {
            throw .issuerKeyUnresolved(
                jwt.keyID == nil ? "no kid and the JWK Set does not hold exactly one key" : "no single key with the kid")
        }
        do {
            return try JWSVerificationKey(jwk: jwk)
        } catch {
            throw .issuerKeyUnresolved("the metadata key cannot verify (\(error))")
        }
    }

    private static func fetchObject(_ url: URL, fetcher: any JWTVCIssuerMetadataFetcher) async throws(SDJWTError) -> JSONObject {
        let body: Data
        do {
            body = try await fetcher.fetch(url)
        } catch {
            throw .issuerMetadataInvalid("fetching \(url.absoluteString) failed")
        }
        guard let object = (try? JSONValue.parse(body))?.objectValue else {
            throw .issuerMetadataInvalid("\(url.absoluteString) is not a JSON object")
        }
        return object
    }
}
