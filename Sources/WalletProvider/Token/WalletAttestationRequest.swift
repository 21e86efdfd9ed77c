import Foundation
import ITWalletProtocol
import ServiceSupport
import TesseraJOSE

/// The Wallet Attestation Request: a JWT signed with the wallet's new key (`cnf.jwk`), carrying the single-use
/// challenge, the hardware key tag and the two hardware proofs over `client_data`.
///
/// The IT-Wallet versions and the production client (pagopa/io-react-native-wallet) write it differently; each
/// spelling is accepted by name (README, "Accepted encodings") and proves the same things: possession of `cnf.jwk`,
/// the challenge, a provider audience, and hardware proofs by the registered key.
struct WalletAttestationRequest: Sendable {
    /// The `typ`, which names the claim set. The endpoint decides which types it takes.
    enum RequestType: String, Sendable {
        /// IT-Wallet 0.7–0.9 examples, the pre-1.0 production client: the challenge in `challenge`.
        case war = "war+jwt"
        /// IT-Wallet 0.7–0.9 claim table (its examples say `war+jwt`): the same claims.
        case variant = "var+jwt"
        /// IT-Wallet 1.0, production client v1.0.0: the challenge in `nonce`, `aud` required.
        case walletProvider = "wp-war+jwt"

        var challengeClaim: String { self == .walletProvider ? "nonce" : "challenge" }
    }

    /// How `iss` names the wallet's key (always by the thumbprint of `cnf.jwk`).
    enum IssuerForm: String, Sendable {
        /// The bare thumbprint: the production client (pre-1.0 and v1.0.0).
        case thumbprint
        /// `<provider>/instance/<thumbprint>`: the IT-Wallet 0.7–1.0 examples.
        case instancePath = "provider_instance_path"
        /// The provider identifier (with its trailing `/`) concatenated with the thumbprint: the 0.7–1.0 claim tables.
        case concatenated = "provider_concatenated"
    }

    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The production client signs with `setExpirationTime("1h")`; the challenge, not the lifetime, makes a request
    /// single-use (it is consumed atomically and expires on its own).
    static let maxLifetime: TimeInterval = 3600
    static let clockSkew: TimeInterval = 60

    let type: RequestType
    let jws: CompactJWS
    let ephemeralKey: JWK
    let thumbprint: String
    let iss: String
    let aud: String?
    let sub: String?
    let challenge: String
    let hardwareSignature: String
    let integrityAssertion: String
    let hardwareKeyTag: String
    let iat: Date
    let exp: Date

    /// The header and the claims' shapes (RFC 6749 §5.2 `invalid_request` when anything is missing or mistyped).
    init(assertion: String, accepting types: Set<RequestType>) throws(WireError) {
        let malformed = { (what: String) in WireError(.badRequest, "invalid_request", what) }
        guard let jws = try? CompactJWS(parsing: assertion) else { throw malformed("assertion is not a compact JWS") }
        guard let type = jws.type.flatMap(RequestType.init(rawValue:)), types.contains(type) else {
            let names = types.map(\.rawValue).sorted().joined(separator: ", ")
            throw malformed("the assertion's typ must be one of \(names) at this endpoint")
        }
        guard jws.algorithm.rawValue == "ES256" else { throw malformed("the assertion must be signed with ES256") }
        guard let claims = try? jws.payloadJSON() else { throw malformed("the assertion's payload is not a JSON object") }
        guard let jwkObject = claims["cnf"]?["jwk"]?.objectValue, let jwk = try? JWK(json: jwkObject), !jwk.isPrivate else {
            throw malformed("cnf.jwk is missing or not a public JWK")
        }
        func string(_ name: String) throws(WireError) -> String {
            guard let value = claims[name]?.stringValue, !value.isEmpty else { throw malformed("\(name) is missing") }
            return value
        }
        func optional(_ name: String) throws(WireError) -> String? {
            guard let value = claims[name] else { return nil }
            guard let text = value.stringValue, !text.isEmpty else { throw malformed("\(name) is not a non-empty string") }
            return text
        }
        func time(_ name: String) throws(WireError) -> Date {
            guard let value = claims[name]?.int64Value else { throw malformed("\(name) is missing") }
            return Date(timeIntervalSince1970: TimeInterval(value))
        }
        let thumbprint = jwk.thumbprintBase64URL()
        guard jws.keyID == thumbprint else { throw malformed("kid must be the thumbprint of cnf.jwk") }
        // Each version names the challenge one way; the other name is not a synonym within one request.
        let otherChallengeClaim = type == .walletProvider ? "challenge" : "nonce"
        guard claims[otherChallengeClaim] == nil else {
            throw malformed("\(type.rawValue) carries the challenge in \(type.challengeClaim), not \(otherChallengeClaim)")
        }
        self.type = type
        self.jws = jws
        ephemeralKey = jwk
        self.thumbprint = thumbprint
        iss = try string("iss")
        aud = try optional("aud")
        sub = try optional("sub")
        challenge = try string(type.challengeClaim)
        hardwareSignature = try string("hardware_signature")
        integrityAssertion = try string("integrity_assertion")
        hardwareKeyTag = try string("hardware_key_tag")
        iat = try time("iat")
        exp = try time("exp")
    }

    /// The signature by `cnf.jwk` (proof of possession of the new key).
    func verifySignature() throws(WireError) {
        do {
            try jws.verify(with: JWSVerificationKey(jwk: ephemeralKey))
        } catch {
            throw WireError(.badRequest, "invalid_grant", "the assertion's signature does not verify with cnf.jwk")
        }
    }

    /// The request is current and lives at most an hour.
    func checkTimes(now: Date) throws(WireError) {
        guard exp > now, iat <= now.addingTimeInterval(Self.clockSkew), exp.timeIntervalSince(iat) <= Self.maxLifetime else {
            throw WireError(.badRequest, "invalid_grant", "the assertion is expired, not yet valid or too long-lived")
        }
    }

    /// The request names this provider: in `aud` (the spec texts; required by `wp-war+jwt`) or, without `aud`, in
    /// `sub` (the 0.7–0.9 examples and the pre-1.0 production client). Every one present must name it.
    func checkAudience(provider: String) throws(WireError) {
        let wrong = WireError(.badRequest, "invalid_grant", "the assertion is not addressed to this Wallet Provider")
        if type == .walletProvider, aud == nil { throw wrong }
        guard aud != nil || sub != nil else { throw wrong }
        for value in [aud, sub].compactMap({ $0 }) where !Self.namesProvider(value, provider) { throw wrong }
    }

    /// `iss` names the thumbprint of `cnf.jwk` in one of the forms of `IssuerForm`.
    func checkIssuer(provider: String) throws(WireError) -> IssuerForm {
        let base = Self.withoutTrailingSlash(provider)
        if iss == thumbprint { return .thumbprint }
        if iss == base + "/instance/" + thumbprint { return .instancePath }
        if iss == base + "/" + thumbprint { return .concatenated }
        throw WireError(.badRequest, "invalid_grant", "iss must name the thumbprint of cnf.jwk")
    }

    /// The provider's identifier, with or without the trailing `/` the spec examples write.
    static func namesProvider(_ value: String, _ provider: String) -> Bool {
        withoutTrailingSlash(value) == withoutTrailingSlash(provider)
    }

    static func withoutTrailingSlash(_ value: String) -> String {
        value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    /// `client_data` in each spelling a wallet may have signed (`ClientData`).
    var clientDataCandidates: [ClientData] {
        ClientData.Encoding.allCases.map { ClientData(encoding: $0, nonce: challenge, thumbprint: thumbprint) }
    }
}
