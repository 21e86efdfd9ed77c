import DeviceAttestation
import Foundation
import TesseraJOSE

/// What `tessera attestation verify` prints: the verdict, every rule broken (code, message, the verifier's
/// diagnostics) and the facts the attestation claims.
struct AttestationReport {
    let valid: Bool
    let failures: [JSONValue]
    let facts: JSONObject

    init<Facts>(_ outcome: AttestationOutcome<Facts>, facts: JSONObject?) {
        valid = outcome.isValid
        failures = outcome.failures.map { failure in
            let reasons = outcome.diagnostics.filter { $0.failure == failure }.map(\.reason)
            let message = ([failure.description] + reasons).joined(separator: ": ")
            return .object(["code": .string(failure.rawValue), "message": .string(message)])
        }
        self.facts = facts ?? [:]
    }

    func print(json: Bool) {
        if json {
            let object: JSONObject = ["valid": .bool(valid), "failures": .array(failures), "facts": .object(facts)]
            Swift.print(JSONValue.object(object).serializedString)
            return
        }
        Swift.print(valid ? "valid" : "NOT valid")
        for failure in failures {
            Swift.print("  \(failure["code"]?.stringValue ?? "?"): \(failure["message"]?.stringValue ?? "")")
        }
        for (name, value) in facts { Swift.print("  \(name): \(value.serializedString)") }
    }

    static func facts(_ facts: AppAttestAttestation) -> JSONObject {
        var object: JSONObject = [
            "key_id": .string(facts.keyID.base64EncodedString()),
            "public_key": .object(JWK(publicKey: facts.publicKey).jsonObject),
            "environment": facts.environment.map { .string($0.rawValue) } ?? .null,
            "app_id": facts.app.map { .string($0.rpID) } ?? .null,
            "counter": .integer(Int64(facts.counter)),
            "receipt_bytes": .integer(Int64(facts.receipt.count)),
            "certificate_extensions": .array(facts.certificateExtensions.map { .string($0) }),
            "extended_key_usages": .array(facts.extendedKeyUsages.map { .string($0) }),
        ]
        if let extensions = facts.extensions {
            var map: JSONObject = ["encoding": .string(extensions.encoding.rawValue)]
            if let version = extensions.bundleVersion { map["bundle_version"] = .string(version) }
            if let category = extensions.validationCategory { map["validation_category"] = .integer(Int64(category)) }
            if !extensions.otherKeys.isEmpty { map["other_keys"] = .array(extensions.otherKeys.map { .string($0) }) }
            object["authenticator_data_extensions"] = .object(map)
        }
        return object
    }

    static func facts(_ facts: AndroidKeyAttestation) -> JSONObject {
        func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
        var object: JSONObject = [
            "leaf_public_key_spki": .string(facts.leafPublicKeySPKI.base64EncodedString()),
            "attestation_version": .integer(Int64(facts.attestationVersion)),
            "attestation_security_level": .integer(Int64(facts.attestationSecurityLevel.rawValue)),
            "keymint_version": .integer(Int64(facts.keyMintVersion)),
            "keymint_security_level": .integer(Int64(facts.keyMintSecurityLevel.rawValue)),
            "attestation_challenge_hex": .string(hex(facts.attestationChallenge)),
            "package_names": .array(facts.packageNames.map { .string($0) }),
            "signing_certificate_digests_hex": .array(facts.signingCertificateDigests.map { .string(hex($0)) }),
        ]
        if let locked = facts.deviceLocked { object["device_locked"] = .bool(locked) }
        if let state = facts.verifiedBootState { object["verified_boot_state"] = .integer(Int64(state.rawValue)) }
        if let value = facts.osVersion { object["os_version"] = .integer(Int64(value)) }
        if let value = facts.osPatchLevel { object["os_patch_level"] = .integer(Int64(value)) }
        if let value = facts.vendorPatchLevel { object["vendor_patch_level"] = .integer(Int64(value)) }
        if let value = facts.bootPatchLevel { object["boot_patch_level"] = .integer(Int64(value)) }
        if let value = facts.creationDateTime { object["creation_date_time_ms"] = .integer(Int64(value)) }
        for (name, value) in [("brand", facts.deviceIDs.brand), ("device", facts.deviceIDs.device), ("model", facts.deviceIDs.model)] {
            if let value { object["attestation_id_\(name)"] = .string(value) }
        }
        return object
    }
}
