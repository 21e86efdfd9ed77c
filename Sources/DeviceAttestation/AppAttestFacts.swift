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

    public init(
        keyID: Data, publicKey: P256.Signing.PublicKey, app: AppAttestAppID?, environment: AppAttestEnvironment?,
        counter: UInt32, receipt: Data
    ) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.app = app
        self.environment = environment
        self.counter = counter
        self.receipt = receipt
    }
}

/// The facts of an App Attest assertion.
public struct AppAttestAssertion: Sendable {
    /// The sign counter; store it (atomically) as the next `previousCounter`.
    public let counter: UInt32
    /// The configured app whose rpIdHash the authenticator data carries; nil if none.
    public let app: AppAttestAppID?

    public init(counter: UInt32, app: AppAttestAppID?) {
        self.counter = counter
        self.app = app
    }
}
