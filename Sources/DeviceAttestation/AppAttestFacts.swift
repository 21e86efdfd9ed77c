import Crypto
import Foundation

/// The facts of an App Attest attestation object.
public struct AppAttestAttestation: Sendable {
    /// SHA-256 of the credential certificate's public key point: the key identifier the attestation proves.
    public let keyID: Data
    /// The attested key (the credential certificate's key); store it to verify assertions.
    public let publicKey: P256.Signing.PublicKey
    /// The configured app whose rpIdHash the authenticator data carries; nil if none.
    public let app: AppAttestAppID?
    /// From the aaguid; nil when it names no known environment.
    public let environment: AppAttestEnvironment?
    public let counter: UInt32
    /// attStmt.receipt as received (a PKCS #7 message for Apple's fraud-risk service; not validated here).
    public let receipt: Data
    /// The authenticator data's extensions map (iOS 27+: bundle version, validation category); nil when absent.
    public let extensions: AppAttestExtensions?
    /// The credential certificate's extensions (dotted OIDs, in certificate order), e.g. the nonce
    /// `1.2.840.113635.100.8.2` and, on current devices, `1.2.840.113635.100.8.6` / `.8.7`.
    public let certificateExtensions: [String]
    /// The credential certificate's extendedKeyUsage purposes (dotted OIDs), e.g. `1.2.840.113635.100.4.24`.
    public let extendedKeyUsages: [String]

    public init(
        keyID: Data, publicKey: P256.Signing.PublicKey, app: AppAttestAppID?, environment: AppAttestEnvironment?,
        counter: UInt32, receipt: Data, extensions: AppAttestExtensions? = nil, certificateExtensions: [String] = [],
        extendedKeyUsages: [String] = []
    ) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.app = app
        self.environment = environment
        self.counter = counter
        self.receipt = receipt
        self.extensions = extensions
        self.certificateExtensions = certificateExtensions
        self.extendedKeyUsages = extendedKeyUsages
    }
}

/// The facts of an App Attest assertion.
public struct AppAttestAssertion: Sendable {
    /// The sign counter; store it (atomically) as the next `previousCounter`.
    public let counter: UInt32
    /// The configured app whose rpIdHash the authenticator data carries; nil if none.
    public let app: AppAttestAppID?
    /// The authenticator data's extensions map (iOS 27+); nil when absent.
    public let extensions: AppAttestExtensions?

    public init(counter: UInt32, app: AppAttestAppID?, extensions: AppAttestExtensions? = nil) {
        self.counter = counter
        self.app = app
        self.extensions = extensions
    }
}
