/// One attestation rule broken. The raw values are the names the shared vectors use
/// (`/work/shared/vectors/attestation`), so a failure list can be compared with `all_failures` directly.
///
/// Each case is one rule; a verifier reports every rule it finds broken, in the order it checks them
/// (`AttestationOutcome.failures`). Why a structure was `malformed` is given by `AttestationDiagnostic`s.
public enum AttestationFailure: String, Error, Sendable, Hashable, CaseIterable {
    /// Undecodable input: CBOR, DER or a structure that is not what the format defines.
    case malformed = "malformed"
    /// A certificate signature does not verify with the next certificate's key, or names do not chain.
    case certificateChainInvalid = "certificate_chain_invalid"
    /// The chain does not end at a trusted root.
    case untrustedRoot = "untrusted_root"
    /// A certificate's notAfter is before the instant of validation.
    case certificateExpired = "certificate_expired"
    /// A certificate's notBefore is after the instant of validation.
    case certificateNotYetValid = "certificate_not_yet_valid"

    // Apple App Attest ("Validating apps that connect to your server").
    /// Step 2–4: the credCert nonce extension differs from SHA-256(authData ‖ clientDataHash).
    case nonceMismatch = "nonce_mismatch"
    /// Step 6: rpIdHash is not SHA-256 of a configured App ID (`teamID.bundleID`).
    case appIDMismatch = "app_id_mismatch"
    /// Steps 5 and 9: SHA-256 of the credCert public key, the keyId and the credentialId disagree.
    case keyIDMismatch = "key_id_mismatch"
    /// Step 7: the sign counter of an attestation is not 0.
    case counterNotZero = "counter_not_zero"
    /// Step 8: the aaguid names an environment the policy does not allow (or none at all).
    case environmentNotAllowed = "environment_not_allowed"
    /// The COSE key in authData is not the credCert key.
    case publicKeyMismatch = "public_key_mismatch"
    /// iOS 27+: `apple_validation_category_01` is not one the policy accepts (or absent where it is required).
    case validationCategoryNotAllowed = "validation_category_not_allowed"
    /// Assertion steps 1–3: the signature does not verify over SHA-256(authenticatorData ‖ SHA-256(clientData)).
    case assertionSignatureInvalid = "assertion_signature_invalid"
    /// Assertion step 5: the counter is not greater than the stored one.
    case assertionCounterNotIncreasing = "assertion_counter_not_increasing"

    // Android key attestation ("Verifying hardware-backed key pairs with key attestation").
    /// A certificate of the chain is on the revocation list.
    case revoked = "revoked"
    /// The KeyDescription extension (1.3.6.1.4.1.11129.2.1.17) is missing, not in the leaf only, or not the schema's DER.
    case malformedExtension = "malformed_extension"
    /// attestationChallenge differs from the server's challenge.
    case challengeMismatch = "challenge_mismatch"
    /// No attested package name is a configured application.
    case packageNameMismatch = "package_name_mismatch"
    /// The attested signing-certificate digests are not those of the configured application.
    case signingCertificateMismatch = "signing_certificate_mismatch"
    /// attestationSecurityLevel or keyMintSecurityLevel is Software.
    case securityLevelTooLow = "security_level_too_low"
    /// hardwareEnforced has no rootOfTrust (tag 704).
    case rootOfTrustMissing = "root_of_trust_missing"
    /// RootOfTrust.deviceLocked is false.
    case bootloaderUnlocked = "bootloader_unlocked"
    /// RootOfTrust.verifiedBootState is not Verified.
    case verifiedBootStateNotVerified = "verified_boot_state_not_verified"
    /// An AuthorizationList's tags are not in ascending order (DER SEQUENCE order of the schema).
    case authorizationListTagsNotAscending = "authorization_list_tags_not_ascending"
}

extension AttestationFailure: CustomStringConvertible {
    /// One line an operator can act on (`tessera attestation verify`).
    public var description: String {
        switch self {
        case .malformed: return "the input cannot be decoded"
        case .certificateChainInvalid: return "a certificate is not signed by the next one, or names do not chain"
        case .untrustedRoot: return "the chain does not end at a trusted root"
        case .certificateExpired: return "a certificate has expired at the instant of validation"
        case .certificateNotYetValid: return "a certificate is not yet valid at the instant of validation"
        case .nonceMismatch: return "the credential certificate's nonce is not SHA-256(authData ‖ clientDataHash)"
        case .appIDMismatch: return "rpIdHash is not SHA-256 of a configured TEAMID.BUNDLEID"
        case .keyIDMismatch: return "the keyId, the credentialId and SHA-256 of the certificate's key disagree"
        case .counterNotZero: return "the attestation's counter is not 0"
        case .environmentNotAllowed: return "the aaguid names an environment that is not allowed (development?)"
        case .publicKeyMismatch: return "the COSE key in authData is not the certificate's key"
        case .validationCategoryNotAllowed: return "the app's launch validation category is not allowed"
        case .assertionSignatureInvalid: return "the assertion's signature does not verify"
        case .assertionCounterNotIncreasing: return "the assertion's counter is not above the stored one"
        case .revoked: return "a certificate of the chain is on the revocation list"
        case .malformedExtension: return "the KeyDescription extension is missing, misplaced or not DER"
        case .challengeMismatch: return "attestationChallenge is not the server's challenge"
        case .packageNameMismatch: return "no attested package is a configured application"
        case .signingCertificateMismatch: return "the attested signing-certificate digests are not the application's"
        case .securityLevelTooLow: return "the attestation or KeyMint security level is Software"
        case .rootOfTrustMissing: return "hardwareEnforced has no RootOfTrust"
        case .bootloaderUnlocked: return "the bootloader is unlocked (deviceLocked false)"
        case .verifiedBootStateNotVerified: return "the verified boot state is not Verified"
        case .authorizationListTagsNotAscending: return "an AuthorizationList's tags are not in ascending order"
        }
    }
}
