import Crypto
import Foundation
import TesseraJOSE
import TesseraCore

/// A verification method of a DID Document: its id (a DID URL) and its public key.
public struct DIDVerificationMethod: Sendable, Hashable {
    /// The absolute DID URL of the method, e.g. `did:jwk:…#0`; the Request Object's `kid` must equal it.
    public let id: String
    /// The method's public key as a JWK; it verifies the Request Object.
    public let publicKey: JWK

    /// A verification method with its DID URL and public key.
    public init(id: String, publicKey: JWK) {
        self.id = id
        self.publicKey = publicKey
    }
}

/// DID Resolution for the `decentralized_identifier` prefix (§5.9.3). Injected, so wallets can add methods that
/// need the network.
public protocol DIDResolver: Sendable {
    /// The verification methods of `did`'s DID Document.
    func verificationMethods(of did: String) async throws(OpenID4VPError) -> [DIDVerificationMethod]
}

/// Resolves the self-describing methods `did:jwk` (one method, `#0`) and `did:key` (Ed25519, P-256, P-384
/// multikeys; one method whose fragment is the method-specific id), without I/O.
public struct KeyDIDResolver: DIDResolver {
    /// The resolver; it holds no state.
    public init() {}

    /// The one verification method of a `did:jwk` or `did:key` DID.
    /// - Throws: `OpenID4VPError.unsupportedDIDMethod` for other methods or key types,
    ///   `.invalidDecentralizedIdentifier` when the method-specific id does not decode to a public key.
    public func verificationMethods(of did: String) async throws(OpenID4VPError) -> [DIDVerificationMethod] {
        try Self.resolve(did)
    }

    static func resolve(_ did: String) throws(OpenID4VPError) -> [DIDVerificationMethod] {
        let parts = did.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "did", !parts[1].isEmpty, !parts[2].isEmpty else {
            throw .invalidDecentralizedIdentifier("not did:<method>:<id>")
        }
        switch parts[1] {
        case "jwk": return [DIDVerificationMethod(id: did + "#0", publicKey: try jwkDID(String(parts[2])))]
        case "key":
            let identifier = String(parts[2])
            return [DIDVerificationMethod(id: did + "#" + identifier, publicKey: try keyDID(identifier))]
        default: throw .unsupportedDIDMethod(String(parts[1]))
        }
    }

    /// did:jwk: the method-specific id is the base64url UTF-8 JSON of a public JWK.
    static func jwkDID(_ identifier: String) throws(OpenID4VPError) -> JWK {
        let bytes: Data
        do {
            bytes = try Base64URL.decode(identifier)
        } catch {
            throw .invalidDecentralizedIdentifier("did:jwk id is not base64url")
        }
        let jwk: JWK
        do {
            jwk = try JWK(parsing: bytes)
        } catch {
            throw .invalidDecentralizedIdentifier("did:jwk id is not a JWK (\(error))")
        }
        guard !jwk.isPrivate else { throw .invalidDecentralizedIdentifier("did:jwk holds a private key") }
        return jwk
    }

    /// did:key: `z` + base58btc(multicodec varint || key bytes).
    static func keyDID(_ identifier: String) throws(OpenID4VPError) -> JWK {
        guard identifier.first == "z", identifier.utf8.count <= 128,
            let decoded = Base58.decode(identifier.dropFirst())
        else {
            throw .invalidDecentralizedIdentifier("did:key id is not multibase base58btc")
        }
        let bytes = [UInt8](decoded)
        guard bytes.count > 2 else { throw .invalidDecentralizedIdentifier("did:key id too short") }
        let codec = (UInt16(bytes[0]), UInt16(bytes[1]))
        let key = Data(bytes[2...])
        do {
            switch codec {
            case (0xED, 0x01):  // ed25519-pub
                return JWK(publicKey: try Curve25519.Signing.PublicKey(rawRepresentation: key))
            case (0x80, 0x24):  // p256-pub (0x1200), compressed point
                return JWK(publicKey: try P256.Signing.PublicKey(compressedRepresentation: key))
            case (0x81, 0x24):  // p384-pub (0x1201), compressed point
                return JWK(publicKey: try P384.Signing.PublicKey(compressedRepresentation: key))
            default:
                throw KeyError.unsupported
            }
        } catch KeyError.unsupported {
            throw .unsupportedDIDMethod("did:key multicodec 0x\(String(bytes[0], radix: 16))\(String(bytes[1], radix: 16))")
        } catch {
            throw .invalidDecentralizedIdentifier("did:key key bytes are not a valid public key")
        }
    }

    private enum KeyError: Error { case unsupported }
}

/// Base58 with the Bitcoin alphabet (draft-msporny-base58).
enum Base58 {
    static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)

    static func decode(_ text: some StringProtocol) -> Data? {
        var lookup = [Int8](repeating: -1, count: 128)
        for (index, character) in alphabet.enumerated() { lookup[Int(character)] = Int8(index) }
        var result: [UInt8] = []
        var leadingZeros = 0
        var seenNonZero = false
        for character in text.utf8 {
            guard character < 128, lookup[Int(character)] >= 0 else { return nil }
            var carry = Int(lookup[Int(character)])
            if carry == 0 && !seenNonZero {
                leadingZeros += 1
                continue
            }
            seenNonZero = true
            for index in result.indices.reversed() {
                carry += Int(result[index]) * 58
                result[index] = UInt8(carry & 0xFF)
                carry >>= 8
            }
            while carry > 0 {
                result.insert(UInt8(carry & 0xFF), at: 0)
                carry >>= 8
            }
        }
        return Data(repeating: 0, count: leadingZeros) + Data(result)
    }

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var digits: [UInt8] = []
        var leadingZeros = 0
        var seenNonZero = false
        for byte in bytes {
            if byte == 0 && !seenNonZero {
                leadingZeros += 1
                continue
            }
            seenNonZero = true
            var carry = Int(byte)
            for index in digits.indices.reversed() {
                carry += Int(digits[index]) << 8
                digits[index] = UInt8(carry % 58)
                carry /= 58
            }
            while carry > 0 {
                digits.insert(UInt8(carry % 58), at: 0)
                carry /= 58
            }
        }
        return String(repeating: "1", count: leadingZeros) + String(decoding: digits.map { alphabet[Int($0)] }, as: UTF8.self)
    }
}
