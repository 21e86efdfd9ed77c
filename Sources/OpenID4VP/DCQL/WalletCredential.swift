import Foundation
import MDoc
import SwiftASN1
import TesseraCBOR
import TesseraJOSE
import X509

/// A credential the wallet holds, as DCQL evaluates it and as `createAuthorizationResponse` presents it.
///
/// The wallet adapts its stored records to this: an SD-JWT VC gives its `vct`, its claims with every disclosure
/// applied, whether it has a `cnf` key, its issuer chain's AKIs and the compact SD-JWT with the holder key; an
/// mdoc gives MDoc's `StoredCredential` (IssuerSigned as issued, device key).
public enum WalletCredential: Sendable {
    /// An SD-JWT VC (`dc+sd-jwt`).
    case sdJWTVC(SDJWTVCCredential)
    /// An ISO mdoc (`mso_mdoc`).
    case mdoc(MDocCredential)

    /// The wallet's own identifier of the credential.
    public var id: String {
        switch self {
        case .sdJWTVC(let credential): return credential.id
        case .mdoc(let credential): return credential.id
        }
    }

    /// `dc+sd-jwt` or `mso_mdoc`: only queries of the same format can match.
    public var format: CredentialFormat {
        switch self {
        case .sdJWTVC: return .sdJWTVC
        case .mdoc: return .mdoc
        }
    }

    /// KeyIdentifiers of the AuthorityKeyIdentifier extensions in the credential's issuer chain (§6.1.1.1).
    public var authorityKeyIdentifiers: [Data] {
        switch self {
        case .sdJWTVC(let credential): return credential.authorityKeyIdentifiers
        case .mdoc(let credential): return credential.authorityKeyIdentifiers
        }
    }
}

/// An IETF SD-JWT VC (§B.3) held by the wallet.
public struct SDJWTVCCredential: Sendable {
    /// The wallet's own identifier; `DCQLMatch.select` takes these ids.
    public var id: String
    /// `vct`.
    public var vct: String
    /// Further types this one inherits from (SD-JWT VC `extends`), which `vct_values` may also name (§B.3.5).
    public var inheritedTypes: [String]
    /// The claims with every disclosure applied (no `_sd`, `_sd_alg` or `...` entries): what claims path pointers
    /// are evaluated against (§7.1).
    public var claims: JSONObject
    /// Whether the credential has a `cnf` key, i.e. supports Cryptographic Holder Binding (§B.3).
    public var hasCryptographicHolderBinding: Bool
    /// KeyIdentifiers of the AuthorityKeyIdentifier extensions of the issuer's `x5c` certificates (§6.1.1.1).
    public var authorityKeyIdentifiers: [Data]
    /// The SD-JWT as issued: `<issuer-signed JWT>~<disclosure>~…~` (RFC 9901 §4).
    public var compactSDJWT: String
    /// The key `cnf` names, for the Key Binding JWT (raw `r‖s` ECDSA; ES256). Nil without holder binding.
    public var holderKey: (any DeviceKeySigner)?

    /// An SD-JWT VC as the wallet holds it; nothing is parsed or checked here.
    public init(
        id: String, vct: String, inheritedTypes: [String] = [], claims: JSONObject, hasCryptographicHolderBinding: Bool,
        authorityKeyIdentifiers: [Data] = [], compactSDJWT: String, holderKey: (any DeviceKeySigner)?
    ) {
        self.id = id
        self.vct = vct
        self.inheritedTypes = inheritedTypes
        self.claims = claims
        self.hasCryptographicHolderBinding = hasCryptographicHolderBinding
        self.authorityKeyIdentifiers = authorityKeyIdentifiers
        self.compactSDJWT = compactSDJWT
        self.holderKey = holderKey
    }
}

/// An ISO mdoc (§B.2) held by the wallet.
public struct MDocCredential: Sendable {
    /// The wallet's own identifier; `DCQLMatch.select` takes these ids.
    public var id: String
    /// IssuerSigned as issued (item bytes kept) and the device key that signs DeviceAuthentication.
    public var stored: StoredCredential
    /// Namespace → element identifier → element value, from IssuerSigned.
    public let nameSpaces: [String: [String: CBOR]]
    /// KeyIdentifiers of the AuthorityKeyIdentifier extensions of the IssuerAuth `x5chain` (§6.1.1.1).
    public let authorityKeyIdentifiers: [Data]

    /// The docType a query's `meta.doctype_value` must equal (§B.2.3).
    public var docType: String { stored.docType }

    /// Reads the element values and the `x5chain` AKIs from the stored IssuerSigned. Certificates that do not
    /// parse contribute no AKI.
    public init(id: String, stored: StoredCredential) {
        self.id = id
        self.stored = stored
        var nameSpaces: [String: [String: CBOR]] = [:]
        for (namespace, items) in stored.issuerSigned.nameSpaces ?? [:] {
            var elements: [String: CBOR] = [:]
            for item in items { elements[item.value.elementIdentifier] = item.value.elementValue }
            nameSpaces[namespace] = elements
        }
        self.nameSpaces = nameSpaces
        let chain = stored.issuerSigned.issuerAuth.unprotected.x5chain ?? stored.issuerSigned.issuerAuth.protected.headers.x5chain ?? []
        self.authorityKeyIdentifiers = AuthorityKeyIdentifiers.of(chainDER: chain)
    }
}

/// Reading AuthorityKeyIdentifier KeyIdentifiers from certificates (RFC 5280 §4.2.1.1).
public enum AuthorityKeyIdentifiers {
    /// The KeyIdentifier of each certificate's AuthorityKeyIdentifier, in chain order; certificates without one,
    /// or that do not parse, are skipped.
    public static func of(chainDER: [Data]) -> [Data] {
        chainDER.compactMap { der in
            guard let certificate = try? Certificate(derEncoded: Array(der)) else { return nil }
            return of(certificate)
        }
    }

    /// The certificate's AuthorityKeyIdentifier KeyIdentifier, if any.
    public static func of(_ certificate: Certificate) -> Data? {
        guard let extensionValue = try? certificate.extensions.authorityKeyIdentifier,
            let keyIdentifier = extensionValue.keyIdentifier
        else { return nil }
        return Data(keyIdentifier)
    }
}
