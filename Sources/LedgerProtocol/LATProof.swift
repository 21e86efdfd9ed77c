import Crypto
import Foundation
import TesseraCore

/// The anti-phishing proof: the ledger shows it knows the LAT (ledger auth token) without sending it,
/// `HMAC-SHA256(LAT, "vettid-lat-v1" | user_guid | client_nonce | jti)`. The device recomputes it with the LAT it
/// holds and stops on a mismatch.
public enum LATProof {
    public static func make(lat: Data, userGUID: String, clientNonce: String, jti: String) -> Data {
        let message = Data("vettid-lat-v1|\(userGUID)|\(clientNonce)|\(jti)".utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: lat)))
    }

    /// Constant-time comparison with the proof the ledger sent.
    public static func check(_ proof: Data, lat: Data, userGUID: String, clientNonce: String, jti: String) -> Bool {
        ConstantTime.equal(proof, make(lat: lat, userGUID: userGUID, clientNonce: clientNonce, jti: jti))
    }
}
