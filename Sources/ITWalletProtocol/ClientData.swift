import Crypto
import Foundation
import TesseraJOSE

/// `client_data`: what the hardware proofs of an attestation request sign. Both sides build it byte for byte
/// from the nonce and the thumbprint(s) of the key(s) being bound: compact JSON, members in this order, as
/// `JSON.stringify` writes it. The member holding the nonce is named two ways; each is accepted by name.
public struct ClientData: Sendable, Hashable {
    /// How the nonce member is named.
    public enum Encoding: String, Sendable, CaseIterable {
        /// `{"challenge":…,…}`: IT-Wallet 0.7–0.9, and the production client in every version
        /// (io-react-native-wallet; io-wallet rebuilds the same).
        case challengeMember = "challenge_jwk_thumbprint"
        /// `{"nonce":…,…}`: the IT-Wallet 1.0+ texts.
        case nonceMember = "nonce_jwk_thumbprint"

        /// The member's name.
        public var nonceMemberName: String { self == .challengeMember ? "challenge" : "nonce" }
    }

    /// The spelling these bytes use.
    public let encoding: Encoding
    /// The exact bytes the proofs cover.
    public let bytes: Data

    /// `{"<nonce member>": nonce, "jwk_thumbprint": thumbprint}`: Wallet (Instance) Attestation requests.
    public init(encoding: Encoding, nonce: String, thumbprint: String) {
        self.encoding = encoding
        bytes = ([encoding.nonceMemberName: .string(nonce), "jwk_thumbprint": .string(thumbprint)] as JSONObject).serialized()
    }

    /// `{"<nonce member>": nonce, "jwk_thumbprints": [thumbprints…]}`: Key Attestation requests (1.3, 1.5), one
    /// thumbprint per key of `keys_to_attest`, in their order.
    public init(encoding: Encoding, nonce: String, thumbprints: [String]) {
        self.encoding = encoding
        let list = JSONValue.array(thumbprints.map { .string($0) })
        bytes = ([encoding.nonceMemberName: .string(nonce), "jwk_thumbprints": list] as JSONObject).serialized()
    }

    /// SHA-256(client_data): `client_data_hash` of the spec texts, and what App Attest and Play Integrity bind.
    public var hash: Data { Data(SHA256.hash(data: bytes)) }
}
