import DeviceAttestation

extension DevicePosturePolicy {
    /// The rule an Android key attestation breaks beyond the attestation rules themselves, nil when none: checked at
    /// registration and for every key a Key Attestation Request asks to have attested.
    func violation(_ facts: AndroidKeyAttestation) -> String? {
        guard facts.attestationVersion >= minimumAndroidAttestationVersion else {
            return "device posture: attestation version too old"
        }
        if let minimum = minimumAndroidPatchLevel, (facts.osPatchLevel ?? 0) < minimum {
            return "device posture: security patch level older than \(minimum)"
        }
        return nil
    }
}
