import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE
import Testing

@_exported import TesseraTestSupport

enum Fixtures {
    static func url(_ name: String) throws -> URL { try fixtureURL(name, in: .module) }

    /// A fixture file parsed with TesseraJOSE's own strict parser.
    static func json(_ name: String) throws -> JSONValue { try JSONValue.parse(Data(contentsOf: url(name))) }

    /// The `cases` of a vector file.
    static func cases(_ name: String) throws -> [JSONValue] { try json(name).array("cases") }
}

/// Runs `body` and returns the `SDJWTError` it throws, or nil. Any other error fails the test.
func sdjwtError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> SDJWTError? {
    do {
        try body()
        return nil
    } catch let error as SDJWTError {
        return error
    } catch {
        Issue.record("expected an SDJWTError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The instant the vectors were made (KB-JWT `iat`), plus a little.
let vectorInstant = Date(timeIntervalSince1970: 1_683_000_010)
let vectorClock = FixedClock(vectorInstant)

/// The vectors' `holder_disclosed_claims` (sd-jwt-python's selection form) as claims paths for
/// `SDJWTPresentation.disclosures(includingNested: false)`: `true` selects the claim; a non-empty object or array
/// selects the container claim itself and descends; `false`, `null`, `{}` and `[]` select nothing.
func holderPaths(_ value: JSONValue, prefix: [ClaimsPathPointer.Component] = []) throws -> [ClaimsPathPointer] {
    switch value {
    case .bool(true): return [try ClaimsPathPointer(prefix)]
    case .object(let object) where !object.isEmpty:
        var paths: [ClaimsPathPointer] = prefix.isEmpty ? [] : [try ClaimsPathPointer(prefix)]
        for (key, member) in object { paths += try holderPaths(member, prefix: prefix + [.key(key)]) }
        return paths
    case .array(let array) where !array.isEmpty:
        var paths: [ClaimsPathPointer] = prefix.isEmpty ? [] : [try ClaimsPathPointer(prefix)]
        for (index, element) in array.enumerated() { paths += try holderPaths(element, prefix: prefix + [.index(index)]) }
        return paths
    default: return []
    }
}

/// A P-256 signing key from a vector JWK object.
func signingKey(_ jwk: JSONObject) throws -> JWSSigningKey { try JWSSigningKey(jwk: JWK(json: jwk)) }
func verificationKey(_ jwk: JSONObject) throws -> JWSVerificationKey { try JWSVerificationKey(jwk: JWK(json: jwk)) }
