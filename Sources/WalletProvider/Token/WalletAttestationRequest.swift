import Foundation
import ITWalletProtocol
import TesseraJOSE

/// An attestation request of any version: a JWT signed with the key to be bound (`cnf.jwk`), carrying the
/// single-use nonce, the hardware key tag and the hardware proofs over `client_data`; from 1.3 on also the
/// platform and the Wallet Solution, and for Key Attestations the keys to attest.
///
/// The IT-Wallet versions and the production client (pagopa/io-react-native-wallet) write it differently; each
/// spelling is accepted by name (README, "Accepted encodings") and proves the same things: possession of `cnf.jwk`
/// (and of every key to attest), the nonce, a provider audience when one is named, and hardware proofs by the
/// registered key.
struct WalletAttestationRequest: Sendable {
    /// The `typ`, which names the claim set. The endpoint decides which types it takes.
    enum RequestType: String, Sendable {
        /// IT-Wallet 0.7–0.9 examples, the pre-1.0 production client: the challenge in `challenge`.
        case war = "war+jwt"
        /// IT-Wallet 0.7–0.9 claim table (its examples say `war+jwt`): the same claims.
        case variant = "var+jwt"
        /// IT-Wallet 1.0, production client v1.0.0: the challenge in `nonce`, `aud` required.
        case walletProvider = "wp-war+jwt"
        /// Wallet Instance Attestation Request: 1.3 as io-react-native-wallet "1.3.3" sends it, 1.5 §12.1.4.
        case walletInstance = "wia-request+jwt"
        /// Wallet Unit (Key) Attestation Request with `keys_to_attest`: 1.3 as the production client sends it.
        case walletUnit = "wua-request+jwt"
        /// Key Attestation Request with `keys_to_attest`: 1.5 §12.1.5.
        case keyAttestation = "ka-request+jwt"

        var challengeClaim: String { self == .war || self == .variant ? "challenge" : "nonce" }
        /// 1.3+: `platform`, `wallet_solution_id`, `wallet_solution_version`; no audience required.
        var namesWalletSolution: Bool { self == .walletInstance || attestsKeys }
        /// `keys_to_attest`, with `cnf` = its first key and `client_data` naming every key.
        var attestsKeys: Bool { self == .walletUnit || self == .keyAttestation }
    }

    /// How `iss` names the Wallet Instance.
    enum IssuerForm: String, Sendable {
        /// The bare thumbprint of `cnf.jwk`: the production client (pre-1.0, v1.0.0), the 1.5 example.
        case thumbprint
        /// `<provider>/instance/<thumbprint>`: the IT-Wallet 0.7–1.3 examples.
        case instancePath = "provider_instance_path"
        /// The provider identifier (with its trailing `/`) concatenated with the thumbprint: the 0.7–1.3 claim tables.
        case concatenated = "provider_concatenated"
        /// `hardware_key_tag`: the production client from "1.3.3" on (io-wallet checks `iss == hardware_key_tag`);
        /// 1.5 calls `iss` "the unique identifier of the Wallet Instance". Only 1.3+ request types.
        case hardwareKeyTag = "hardware_key_tag"
    }

    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The production client signs with `setExpirationTime("1h")`; the challenge, not the lifetime, makes a request
    /// single-use (it is consumed atomically and expires on its own).
    static let maxLifetime: TimeInterval = 3600
    static let clockSkew: TimeInterval = 60
    /// Parser limits: a Key Attestation Request carries up to `KeysToAttest.maxCount` elements of at most
    /// `KeyAttestationElement.maxLength` each.
    static let limits = JOSELimits(maxCompactLength: 640 * 1024, json: .default)

    let type: RequestType
    let jws: CompactJWS
    let ephemeralKey: JWK
    let thumbprint: String
    let iss: String
    let aud: String?
    let sub: String?
    let challenge: String
    let hardwareSignature: String
    /// Absent only in a 1.5 Key Attestation Request (its flow forbids a top-level one).
    let integrityAssertion: String?
    let hardwareKeyTag: String
    let iat: Date
    let exp: Date
    /// 1.3+ request types.
    let solution: WalletSolutionClaims?
    /// Key Attestation request types: the elements, `cnf` being the first one's key.
    let keysToAttest: KeysToAttest?

    /// The header and the claims' shapes.
    init(assertion: String, accepting types: Set<RequestType>) throws(AttestationRequestError) {
        guard let jws = try? CompactJWS(parsing: assertion, limits: Self.limits) else {
            throw .malformed("assertion is not a compact JWS")
        }
        guard let type = jws.type.flatMap(RequestType.init(rawValue:)), types.contains(type) else {
            if jws.type == ITWalletType.combinedAttestationsRequest {
                throw .unacceptedType(
                    "attestations-request+jwt (the 1.3.x combined request) is not served; use wia-request+jwt at "
                        + "\(ITWalletEndpoint.attestation(.v1_3)) and wua-request+jwt at \(ITWalletEndpoint.keyAttestation(.v1_3) ?? "")")
            }
            let names = types.map(\.rawValue).sorted().joined(separator: ", ")
            throw .unacceptedType("the assertion's typ must be one of \(names) at this endpoint")
        }
        guard jws.algorithm.rawValue == "ES256" else { throw .malformed("the assertion must be signed with ES256") }
        guard let claims = try? jws.payloadJSON() else { throw .malformed("the assertion's payload is not a JSON object") }
        guard let cnf = claims["cnf"] else { throw .missing("cnf") }
        guard let jwkObject = cnf["jwk"]?.objectValue, let jwk = try? JWK(json: jwkObject), !jwk.isPrivate else {
            throw .malformed("cnf.jwk is not a public JWK")
        }
        let reader = ClaimReader(claims: claims)
        let thumbprint = jwk.thumbprintBase64URL()
        guard jws.keyID == thumbprint else { throw .malformed("kid must be the thumbprint of cnf.jwk") }
        // Each version names the challenge one way; the other name is not a synonym within one request.
        let otherChallengeClaim = type.challengeClaim == "nonce" ? "challenge" : "nonce"
        guard claims[otherChallengeClaim] == nil else {
            throw .unexpected("\(type.rawValue) carries the challenge in \(type.challengeClaim), not \(otherChallengeClaim)")
        }
        self.type = type
        self.jws = jws
        ephemeralKey = jwk
        self.thumbprint = thumbprint
        iss = try reader.string("iss")
        aud = try reader.optional("aud")
        sub = try reader.optional("sub")
        challenge = try reader.string(type.challengeClaim)
        hardwareSignature = try reader.string("hardware_signature")
        integrityAssertion = type == .keyAttestation ? try reader.optional("integrity_assertion") : try reader.string("integrity_assertion")
        hardwareKeyTag = try reader.string("hardware_key_tag")
        iat = try reader.time("iat")
        exp = try reader.time("exp")
        solution = type.namesWalletSolution ? try WalletSolutionClaims(reader) : nil
        if type.attestsKeys {
            let keys = try KeysToAttest(claims["keys_to_attest"])
            guard keys.elements.first?.thumbprint == thumbprint else {
                throw .malformed("cnf.jwk must be the first key of keys_to_attest")
            }
            keysToAttest = keys
        } else {
            guard claims["keys_to_attest"] == nil else { throw .malformed("keys_to_attest belongs to a Key Attestation Request") }
            keysToAttest = nil
        }
    }

    /// The signature by `cnf.jwk` (proof of possession of the new key), then each element's by its own key.
    func verifySignature() throws(AttestationRequestError) {
        do {
            try jws.verify(with: JWSVerificationKey(jwk: ephemeralKey))
        } catch {
            throw .signatureInvalid("the assertion's signature does not verify with cnf.jwk")
        }
        try keysToAttest?.verifySignatures()
    }

    /// The request (and every element) is current and lives at most an hour.
    func checkTimes(now: Date) throws(AttestationRequestError) {
        guard Self.isCurrent(iat: iat, exp: exp, now: now) else {
            throw .notCurrent("the assertion is expired, not yet valid or too long-lived")
        }
        try keysToAttest?.checkTimes(now: now)
    }

    static func isCurrent(iat: Date, exp: Date, now: Date) -> Bool {
        exp > now && iat <= now.addingTimeInterval(clockSkew) && exp.timeIntervalSince(iat) <= maxLifetime
    }

    /// The request names this provider: in `aud` (the spec texts; required by `wp-war+jwt`) or, without `aud`, in
    /// `sub` (the 0.7–0.9 examples and the pre-1.0 production client). From 1.3 on neither is required (the
    /// production client and the 1.5 text send none). Every one present must name it.
    func checkAudience(provider: String) throws(AttestationRequestError) {
        let wrong = AttestationRequestError.audience("the assertion is not addressed to this Wallet Provider")
        if type == .walletProvider, aud == nil { throw .missing("aud") }
        guard type.namesWalletSolution || aud != nil || sub != nil else { throw wrong }
        for value in [aud, sub].compactMap({ $0 }) where !Self.namesProvider(value, provider) { throw wrong }
    }

    /// `iss` names the Wallet Instance in one of the forms of `IssuerForm`.
    func checkIssuer(provider: String) throws(AttestationRequestError) -> IssuerForm {
        let base = Self.withoutTrailingSlash(provider)
        if iss == thumbprint { return .thumbprint }
        if iss == base + "/instance/" + thumbprint { return .instancePath }
        if iss == base + "/" + thumbprint { return .concatenated }
        if type.namesWalletSolution, iss == hardwareKeyTag { return .hardwareKeyTag }
        throw .issuer("iss must name the thumbprint of cnf.jwk\(type.namesWalletSolution ? " or the hardware key tag" : "")")
    }

    /// The provider's identifier, with or without the trailing `/` the spec examples write.
    static func namesProvider(_ value: String, _ provider: String) -> Bool {
        withoutTrailingSlash(value) == withoutTrailingSlash(provider)
    }

    static func withoutTrailingSlash(_ value: String) -> String {
        value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    /// `client_data` in each spelling a wallet may have signed (`ClientData`): `jwk_thumbprint` of `cnf.jwk`, or for
    /// Key Attestations `jwk_thumbprints` of every key to attest, in order.
    var clientDataCandidates: [ClientData] {
        ClientData.Encoding.allCases.map { encoding in
            if let keys = keysToAttest {
                return ClientData(encoding: encoding, nonce: challenge, thumbprints: keys.elements.map(\.thumbprint))
            }
            return ClientData(encoding: encoding, nonce: challenge, thumbprint: thumbprint)
        }
    }
}

/// Typed reads of a claims set: an absent claim is `missing`, one of another type `malformed`, each named with
/// `context` (e.g. `keys_to_attest[1].`) before it.
struct ClaimReader: Sendable {
    let claims: JSONObject
    var context = ""

    func string(_ name: String) throws(AttestationRequestError) -> String {
        guard let text = try optional(name) else { throw .missing(context + name) }
        return text
    }

    func optional(_ name: String) throws(AttestationRequestError) -> String? {
        guard let value = claims[name] else { return nil }
        guard let text = value.stringValue, !text.isEmpty else { throw .malformed("\(context + name) is not a non-empty string") }
        return text
    }

    func time(_ name: String) throws(AttestationRequestError) -> Date {
        guard let value = claims[name] else { throw .missing(context + name) }
        guard let seconds = value.int64Value else { throw .malformed("\(context + name) is not a NumericDate") }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
