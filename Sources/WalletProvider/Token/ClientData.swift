import Crypto
import Foundation
import TesseraJOSE

/// `client_data`: what the hardware proofs of a Wallet Attestation Request sign, rebuilt here byte for byte from
/// the challenge and the thumbprint of `cnf.jwk` (compact JSON, members in this order, as `JSON.stringify` writes
/// it). The member holding the challenge is named two ways; each is accepted by name.
struct ClientData: Sendable {
    enum Encoding: String, Sendable, CaseIterable {
        /// `{"challenge":…,"jwk_thumbprint":…}`: IT-Wallet 0.7–0.9, and the production client in every version
        /// (io-react-native-wallet `getAttestation`; io-wallet rebuilds the same).
        case challengeMember = "challenge_jwk_thumbprint"
        /// `{"nonce":…,"jwk_thumbprint":…}`: the IT-Wallet 1.0+ texts.
        case nonceMember = "nonce_jwk_thumbprint"
    }

    let encoding: Encoding
    let bytes: Data

    init(encoding: Encoding, challenge: String, thumbprint: String) {
        self.encoding = encoding
        let name = encoding == .challengeMember ? "challenge" : "nonce"
        let object: JSONObject = [name: .string(challenge), "jwk_thumbprint": .string(thumbprint)]
        bytes = object.serialized()
    }

    /// SHA-256(client_data): `client_data_hash` of the spec texts, and what App Attest and Play Integrity bind.
    var hash: Data { Data(SHA256.hash(data: bytes)) }
}
