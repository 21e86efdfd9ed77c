// libFuzzer target for the DeviceAttestation verifiers. One binary serves three targets; the structure comes from
// TESSERA_FUZZ_STRUCTURE, which `scripts/fuzz <structure>` sets:
//
//   app-attest-object     clientDataHash (32) ‖ keyId (32) ‖ instant (8, big-endian seconds since 1970)
//                         ‖ attestation object (CBOR); verified with development and production allowed.
//   app-attest-assertion  clientData length (1) ‖ clientData ‖ public key (65, X9.63; a fixed key if not on the
//                         curve) ‖ previous counter (4, big-endian) ‖ assertion object (CBOR); also verified in the
//                         two parts the production IT-Wallet client sends, which must agree with the map.
//   android-chain         challenge length (1) ‖ challenge ‖ instant (8) ‖ certificates, each as length (2,
//                         big-endian) ‖ DER; verified under the Google root keys, strictly and leniently. The bytes
//                         after the fixed fields are also read as a wallet's `key_attestation` text.
//
// Seeds: Fuzz/attestation/seeds/<structure>/ (real vector samples in these layouts).
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. Verification never crashes (ASan checks memory).
//   2. `malformed` comes alone and without facts; any other outcome has facts, except after
//      `malformedExtension` (Android), which has none.
//   3. Failures are distinct and in the verifier's documented rule order.
//   4. Verifying the same input twice gives the same failures.
//   5. App Attest: a valid attestation proves the keyId given; a valid assertion has a counter above the previous.
//   6. Android: when strict decoding reads the extension, lenient decoding reads the same facts and reports the same
//      failures, less `authorizationListTagsNotAscending`.

import Crypto
import DeviceAttestation
import Foundation
import FuzzSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private enum Structure: String, CaseIterable {
    case appAttestObject = "app-attest-object"
    case appAttestAssertion = "app-attest-assertion"
    case androidChain = "android-chain"
}

private let structure = FuzzDriver.structure(Structure.self, program: "FuzzAttestation")

private func violation(_ message: String, _ input: Data) -> Never {
    FuzzDriver.violation("\(structure.rawValue)", message, input)
}

// Verifiers, apps and keys are made per input: LeakSanitizer cannot follow the tagged pointers of `Data` or of a
// key out of a global, and would report them as leaks.
private func appAttestVerifier() -> AppAttestVerifier {
    let apps = [
        AppAttestAppID(teamID: "M2X5YQ4BJ7", bundleID: "org.reactjs.native.example.IoReactNativeIntegrityExample"),
        AppAttestAppID(teamID: "V8H6LQ9448", bundleID: "io.uebelacker.AppAttestExample"),
    ]
    return AppAttestVerifier(policy: AppAttestPolicy(apps: apps, allowedEnvironments: [.production, .development]))
}

/// The app of the io-wallet seed, so that its mutations get past the application check.
private func androidApp() -> AndroidApplication {
    AndroidApplication(
        packageName: "com.ioreactnativeintegrityexample",
        signingCertificateDigests: [Data(base64Encoded: "+sYXRdwJA3hvue3mKpYrOZ9zSPC7b4mbgzJmdZEDO5w=") ?? Data()])
}

/// The order in which each verifier checks its rules (see their documentation).
private let attestationOrder: [AttestationFailure] = [
    .malformed, .certificateChainInvalid, .untrustedRoot, .certificateExpired, .certificateNotYetValid, .nonceMismatch,
    .keyIDMismatch, .appIDMismatch, .counterNotZero, .environmentNotAllowed, .publicKeyMismatch,
    .validationCategoryNotAllowed,
]
private let assertionOrder: [AttestationFailure] = [
    .malformed, .assertionSignatureInvalid, .appIDMismatch, .assertionCounterNotIncreasing, .validationCategoryNotAllowed,
]
private let androidOrder: [AttestationFailure] = [
    .malformed, .certificateChainInvalid, .untrustedRoot, .certificateExpired, .certificateNotYetValid, .revoked,
    .malformedExtension, .challengeMismatch, .packageNameMismatch, .signingCertificateMismatch, .securityLevelTooLow,
    .rootOfTrustMissing, .bootloaderUnlocked, .verifiedBootStateNotVerified, .authorizationListTagsNotAscending,
]

/// Properties 2–4, shared by every structure.
private func checkShape<Facts>(
    _ outcome: AttestationOutcome<Facts>, again: AttestationOutcome<Facts>, order: [AttestationFailure], _ input: Data
) {
    if outcome.failures.contains(.malformed), outcome.failures != [.malformed] || outcome.facts != nil {
        violation("malformed together with other failures or facts: \(outcome.failures)", input)
    }
    let noFacts = outcome.failures.contains(.malformed) || outcome.failures.contains(.malformedExtension)
    if noFacts != (outcome.facts == nil) { violation("facts present: \(outcome.facts != nil), \(outcome.failures)", input) }
    if outcome.failures != order.filter(outcome.failures.contains) {
        violation("failures repeated or out of rule order: \(outcome.failures)", input)
    }
    if again.failures != outcome.failures { violation("a second verification differs", input) }
}

private func fuzzAppAttestObject(_ input: Data) {
    var fields = FuzzFields(input)
    guard let clientDataHash = fields.take(32), let keyID = fields.take(32), let seconds = fields.integer(8) else { return }
    let instant = Date(timeIntervalSince1970: TimeInterval(seconds % 4_102_444_800))  // before 2100
    let object = fields.rest
    let verifier = appAttestVerifier()
    let verify = { verifier.verifyAttestation(object, clientDataHash: clientDataHash, keyID: keyID, at: instant) }
    let outcome = verify()
    checkShape(outcome, again: verify(), order: attestationOrder, input)
    if outcome.isValid, outcome.facts?.keyID != keyID { violation("a valid attestation proves another keyId", input) }
}

private func fuzzAppAttestAssertion(_ input: Data) {
    var fields = FuzzFields(input)
    guard let length = fields.integer(1), let clientData = fields.take(Int(length)), let point = fields.take(65),
        let previous = fields.integer(4)
    else { return }
    // When the bytes are not a P-256 point, a key that signed nothing (private key 1).
    guard let key = (try? P256.Signing.PublicKey(x963Representation: point))
        ?? (try? P256.Signing.PrivateKey(rawRepresentation: Data(count: 31) + Data([1])))?.publicKey
    else { violation("no fallback key", input) }
    let object = fields.rest
    let verifier = appAttestVerifier()
    let verify = {
        verifier.verifyAssertion(object, clientData: clientData, publicKey: key, previousCounter: UInt32(previous))
    }
    let outcome = verify()
    checkShape(outcome, again: verify(), order: assertionOrder, input)
    if outcome.isValid, let counter = outcome.facts?.counter, counter <= UInt32(previous) {
        violation("a valid assertion does not increase the counter", input)
    }
    // The same assertion in two parts (hardware_signature, integrity_assertion) is judged exactly as the map.
    if let parts = try? AppAttestAssertionObject(object) {
        let split = verifier.verifyAssertion(
            signature: parts.signature, authenticatorData: parts.authenticatorData, clientData: clientData, publicKey: key,
            previousCounter: UInt32(previous))
        if split.failures != outcome.failures { violation("split \(split.failures) and map \(outcome.failures) disagree", input) }
    }
}

private func fuzzAndroidChain(_ input: Data) {
    var fields = FuzzFields(input)
    guard let length = fields.integer(1), let challenge = fields.take(Int(length)), let seconds = fields.integer(8)
    else { return }
    let instant = Date(timeIntervalSince1970: TimeInterval(seconds % 4_102_444_800))
    checkWireEvidence(fields.rest, input)
    var chain: [Data] = []
    while chain.count < 10, let size = fields.integer(2), let der = fields.take(Int(size)) { chain.append(der) }
    func verify(_ encoding: AndroidAttestationPolicy.Encoding) -> AttestationOutcome<AndroidKeyAttestation> {
        AndroidKeyAttestationVerifier(policy: AndroidAttestationPolicy(applications: [androidApp()], encoding: encoding))
            .verify(chain: chain, challenge: challenge, at: instant)
    }
    let strict = verify(.strict)
    checkShape(strict, again: verify(.strict), order: androidOrder, input)
    let lenient = verify(.lenient)
    checkShape(lenient, again: lenient, order: androidOrder, input)
    if let facts = strict.facts {
        guard let lenientFacts = lenient.facts, lenientFacts.attestationChallenge == facts.attestationChallenge,
            lenientFacts.leafPublicKeySPKI == facts.leafPublicKeySPKI, lenientFacts.deviceLocked == facts.deviceLocked
        else { violation("lenient decoding reads other facts than strict decoding", input) }
        if lenient.failures != strict.failures.filter({ $0 != .authorizationListTagsNotAscending }) {
            violation("strict \(strict.failures) and lenient \(lenient.failures) disagree beyond tag order", input)
        }
    }
}

/// A `key_attestation` text: never a crash; an Android chain holds 1 to 10 DER SEQUENCEs; the same text read twice
/// gives the same evidence.
private func checkWireEvidence(_ bytes: Data, _ input: Data) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let evidence = KeyAttestationEvidence(wire: text) else { return }
    if case .androidChain(let chain) = evidence.kind, !(1...10).contains(chain.count) || chain.contains(where: { $0.first != 0x30 }) {
        violation("a key_attestation list outside its bounds", input)
    }
    if KeyAttestationEvidence(wire: text)?.encoding != evidence.encoding { violation("key_attestation read twice differs", input) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    switch structure {
    case .appAttestObject: fuzzAppAttestObject(input)
    case .appAttestAssertion: fuzzAppAttestAssertion(input)
    case .androidChain: fuzzAndroidChain(input)
    }
    return 0
}

@_cdecl("FuzzAttestation_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
