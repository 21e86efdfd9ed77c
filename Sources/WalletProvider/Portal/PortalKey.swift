import Crypto
import Foundation
import TesseraCore
import TesseraJOSE

/// The portal's MAC key (pre-login CSRF tokens, enrolment tickets): HKDF-SHA256 (RFC 5869) of the provider's
/// signing key under a label of its own. Deriving it, rather than drawing a random one at start, keeps tokens valid
/// across a restart and between several app instances that share the provider key, with no second secret to keep;
/// the label keeps the derived key apart from the signing use.
struct PortalKey: Sendable {
    private let key: SymmetricKey

    init(providerKey: ProviderKey) {
        let material = SymmetricKey(data: providerKey.signingKey.rawPrivateKey)
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: material, salt: Data("tessera wallet provider".utf8),
            info: Data("portal mac key v1".utf8), outputByteCount: 32)
    }

    /// base64url(HMAC-SHA256(label, parts…)); each field is length-prefixed, so no two lists share an input.
    func mac(_ label: String, _ parts: [String]) -> String {
        var message = Data()
        for field in [label] + parts {
            let bytes = Data(field.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { message.append(contentsOf: $0) }
            message.append(bytes)
        }
        return Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: message, using: key)))
    }

    /// Whether `candidate` is the MAC of the parts, compared in constant time.
    func verify(_ candidate: String, _ label: String, _ parts: [String]) -> Bool {
        ConstantTime.equal(Array(candidate.utf8), Array(mac(label, parts).utf8))
    }
}

extension JWSSigningKey {
    /// The private scalar (or seed), the input of the derivation above; never leaves the process.
    fileprivate var rawPrivateKey: Data {
        switch self {
        case .es256(let key): return key.rawRepresentation
        case .es384(let key): return key.rawRepresentation
        case .es512(let key): return key.rawRepresentation
        case .edDSA(let key): return key.rawRepresentation
        }
    }
}
