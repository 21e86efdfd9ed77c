import Foundation
import ServiceSupport
import TesseraJOSE

/// Signs what the provider issues (attestations of every version, Key Attestations) with its signing identity,
/// putting the trust material relying parties read into the JOSE header: `kid`, `x5c` (the signing chain, RFC 7515
/// §4.1.6; required by IT-Wallet 1.3 and 1.5, optional in 1.0) and `trust_chain` (OpenID Federation §4.3: the
/// provider's current Entity Configuration, then its superiors' statements; required by 0.9 and 1.0.0–1.0.2).
struct AttestationSigner: Sendable {
    /// Which trust material a document's header carries.
    struct TrustMaterial: OptionSet, Sendable {
        let rawValue: Int
        static let x5c = TrustMaterial(rawValue: 1)
        static let trustChain = TrustMaterial(rawValue: 2)
    }

    let identity: ProviderSigningIdentity
    let entityConfiguration: EntityConfigurationIssuer
    /// The superiors' statements and the trust anchor's Entity Configuration, in chain order.
    let superiorStatements: [String]

    /// The header for `typ` with the requested trust material.
    func header(typ: String, carrying material: TrustMaterial) throws(WireError) -> JSONObject {
        var header: JSONObject = ["typ": .string(typ), "kid": .string(identity.kid)]
        if material.contains(.x5c) { header["x5c"] = .array(identity.x5c.map { .string($0) }) }
        if material.contains(.trustChain) {
            let leaf: String
            do {
                leaf = try entityConfiguration.current()
            } catch {
                throw WireError.server
            }
            header["trust_chain"] = .array(([leaf] + superiorStatements).map { .string($0) })
        }
        return header
    }

    /// A compact JWS over `claims` (ES256).
    func sign(typ: String, claims: JSONObject, carrying material: TrustMaterial) throws(WireError) -> String {
        let header = try header(typ: typ, carrying: material)
        do {
            return try CompactJWS.sign(header: header, claims: claims, key: identity.signingKey).compact
        } catch {
            throw WireError.server
        }
    }
}
