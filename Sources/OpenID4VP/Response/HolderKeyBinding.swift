import Foundation
import MDoc
import SDJWT
import TesseraCOSE
import TesseraJOSE
import TesseraCore

/// Signs a Key Binding JWT (RFC 9901 §4.3: `typ` `kb+jwt`) with the holder key behind `DeviceKeySigner`, so a
/// hardware key signs it the way it signs mdoc DeviceAuthentication (raw `r‖s`, the JWS form of RFC 7518 §3.4).
/// SDJWT's own `SDJWTPresentation.keyBound` takes an in-memory key and the four standard claims only; OpenID4VP
/// also needs `transaction_data_hashes` (B.3.3.1).
enum HolderKeyBinding {
    /// The holder key's public JWK (EC2 and OKP COSE keys).
    static func publicJWK(of key: any DeviceKeySigner) -> JWK? {
        var object = JSONObject()
        switch key.publicKey.material {
        case .ec2(let curve, let x, let y, _):
            object["kty"] = "EC"
            object["crv"] = .string(curve.name)
            object["x"] = .string(Base64URL.encode(x))
            object["y"] = .string(Base64URL.encode(y))
        case .okp(let curve, let x, _):
            object["kty"] = "OKP"
            object["crv"] = .string(curve.name)
            object["x"] = .string(Base64URL.encode(x))
        case .symmetric:
            return nil
        }
        return try? JWK(json: object)
    }

    /// RFC 9901 §4.3: the KB-JWT is signed with the key in `cnf.jwk`; a different holder key would produce a
    /// presentation every verifier refuses, so it is refused here.
    static func checkConfirmationKey(_ claims: JSONObject, key: any DeviceKeySigner) throws(OpenID4VPError) {
        guard let cnf = claims["cnf"]?["jwk"]?.objectValue, let confirmation = try? JWK(json: cnf) else {
            throw .presentationFailed("the credential's cnf has no usable jwk")
        }
        guard let holder = publicJWK(of: key), holder.thumbprint() == confirmation.thumbprint() else {
            throw .presentationFailed("the holder key is not the credential's cnf key")
        }
    }

    static func sign(payload: JSONObject, key: any DeviceKeySigner) async throws(OpenID4VPError) -> CompactJWS {
        let algorithm: JOSEAlgorithm
        switch key.algorithm {
        case .es256: algorithm = .es256
        case .es384: algorithm = .es384
        case .es512: algorithm = .es512
        case .edDSA: algorithm = .edDSA
        default: throw .presentationFailed("the holder key algorithm cannot sign a JWS")
        }
        let header: JSONObject = ["alg": .string(algorithm.rawValue), "typ": "kb+jwt"]
        let signingInput = Base64URL.encode(header.serialized()) + "." + Base64URL.encode(payload.serialized())
        let signature: Data
        do {
            signature = try await key.sign(Data(signingInput.utf8))
        } catch {
            throw .presentationFailed("the holder key did not sign the KB-JWT")
        }
        do {
            return try CompactJWS(parsing: signingInput + "." + Base64URL.encode(signature))
        } catch {
            throw .presentationFailed("the KB-JWT is not a valid JWS (\(error))")
        }
    }
}
