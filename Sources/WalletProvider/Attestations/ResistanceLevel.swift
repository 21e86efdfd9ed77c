import DeviceAttestation

/// ISO/IEC 18045 attack-potential resistance, as IT-Wallet 1.3 / 1.5 Key Attestations state it in `key_storage`
/// and `user_authentication`.
enum ResistanceLevel: String, Sendable {
    case high = "iso_18045_high"
    case moderate = "iso_18045_moderate"
    case enhancedBasic = "iso_18045_enhanced-basic"
    case basic = "iso_18045_basic"

    /// io-wallet's rule for `key_storage`: the Secure Enclave (iOS) and StrongBox (Android keymaster level 2) resist
    /// moderate attack potential; a TEE key, enhanced-basic. (A software key never gets this far: the attestation
    /// policy refuses it as `security_level_too_low`.)
    static func keyStorage(android level: AndroidSecurityLevel?) -> ResistanceLevel {
        switch level {
        case nil, .strongBox?: .moderate
        case .trustedEnvironment?, .software?: .enhancedBasic
        }
    }

    /// `user_authentication`: io-wallet states moderate for every key (the device's screen lock, biometrics).
    static let userAuthentication = ResistanceLevel.moderate
}
