/// Errors of the throwing APIs of this module (configuration and the test authority). Verification itself never
/// throws: it returns an `AttestationOutcome`. Messages never contain key material.
public enum DeviceAttestationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A revocation list could not be read.
    case invalidRevocationList(String)
    /// A PEM document is not the expected certificate or key.
    case invalidPEM(String)
    /// A private key does not belong to the certificate it was given with, or certificates do not chain.
    case keyMismatch(String)
    /// Creating a certificate or an extension failed.
    case issuanceFailed(String)
    /// A file of the test authority could not be read or written.
    case fileAccess(String)
    /// An App Attest assertion object is not the CBOR map `generateAssertion` returns.
    case malformedAssertion(String)

    public var description: String {
        switch self {
        case .invalidRevocationList(let reason): return "invalid revocation list: \(reason)"
        case .invalidPEM(let reason): return "invalid PEM: \(reason)"
        case .keyMismatch(let reason): return "key mismatch: \(reason)"
        case .issuanceFailed(let reason): return "issuance failed: \(reason)"
        case .fileAccess(let reason): return "file access: \(reason)"
        case .malformedAssertion(let reason): return "malformed App Attest assertion: \(reason)"
        }
    }
}
