import ITWalletProtocol

/// Why the wallet refuses an attestation, a status list or a version choice: one case per rule, named after the
/// IT-Wallet section (or RFC) that states it. Descriptions carry no secret.
public enum AttestationCheckError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `--spec` named a version the provider's Entity Configuration does not advertise (its metadata entity types,
    /// IT-Wallet "Wallet Provider metadata").
    case versionNotAdvertised(ITWalletVersion, advertised: [ITWalletVersion])
    /// The provider advertises no version this wallet speaks.
    case noCommonVersion(advertised: [ITWalletVersion])
    /// The version has no Key Attestation (IT-Wallet before 1.3), or the provider advertises none that has.
    case keyAttestationUnavailable(ITWalletVersion?)
    /// The document is not a compact JWS (or its payload is not a JSON object).
    case notJWS(String)
    /// `typ` is not the one the version issues.
    case wrongType(expected: String, found: String?)
    /// The `x5c` chain does not lead to a configured trust anchor, or the signature does not verify with its leaf
    /// (1.3/1.5: `x5c` REQUIRED in the WIA header).
    case untrustedSignature([String])
    /// A claim the version requires is missing or malformed.
    case missingClaim(String)
    /// `cnf.jwk` is not the key this wallet sent (RFC 7800 §3.1).
    case notBoundToOurKey(String)
    /// `exp` is in the past at the wallet's clock.
    case expired
    /// `exp - iat` exceeds 24 hours (IT-Wallet: the WIA "MUST NOT exceed 24 hours").
    case lifetimeTooLong(seconds: Int64)
    /// A 1.0 answer without the format the text requires (`jwt`, `dc+sd-jwt`, `mso_mdoc`), or a format that does not verify.
    case format(String, String)
    /// A Token Status List Token that does not verify, or whose `sub` is not the URI it was fetched from (TSL §5.1).
    case statusList(String)

    /// A sentence naming what was refused and why (no key material).
    public var description: String {
        switch self {
        case .versionNotAdvertised(let version, let advertised):
            return "the provider does not advertise IT-Wallet \(version.rawValue) (it advertises \(Self.list(advertised)))"
        case .noCommonVersion(let advertised): return "no IT-Wallet version in common (the provider advertises \(Self.list(advertised)))"
        case .keyAttestationUnavailable(let version):
            return version.map { "IT-Wallet \($0.rawValue) has no Key Attestation (1.3 and 1.5 have)" } ?? "the provider advertises no version with Key Attestation"
        case .notJWS(let what): return "\(what) is not a compact JWS with a JSON payload"
        case .wrongType(let expected, let found): return "typ is \(found ?? "absent"), expected \(expected)"
        case .untrustedSignature(let why): return "the signature does not lead to a trusted anchor: \(why.joined(separator: "; "))"
        case .missingClaim(let name): return "claim \(name) is missing or malformed"
        case .notBoundToOurKey(let what): return "\(what) is not bound to this wallet's key (cnf.jwk)"
        case .expired: return "the attestation has expired"
        case .lifetimeTooLong(let seconds): return "the attestation lives \(seconds) s, more than 24 h"
        case .format(let format, let why): return "1.0 format \(format): \(why)"
        case .statusList(let why): return "status list: \(why)"
        }
    }

    private static func list(_ versions: [ITWalletVersion]) -> String {
        versions.isEmpty ? "none" : versions.map(\.rawValue).joined(separator: ", ")
    }
}
