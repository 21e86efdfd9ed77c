import Crypto
import Foundation

extension AppAttestVerifier {
    /// Verifies an assertion ("Validating apps that connect to your server", assertion steps 1–5). Rules, in order:
    /// 1. Steps 1–3: `signature` is ECDSA P-256 / SHA-256 by `publicKey` over nonce =
    ///    SHA-256(authenticatorData ‖ SHA-256(clientData)); the verification hashes the nonce once more, it is not
    ///    treated as a digest (`assertionSignatureInvalid`).
    /// 2. Step 4: rpIdHash is SHA-256 of a configured App ID (`appIDMismatch`).
    /// 3. Step 5: the counter is greater than `previousCounter` (`assertionCounterNotIncreasing`). Storing the new
    ///    counter atomically is the caller's job.
    /// 4. iOS 27+: the launch validation category is one the policy accepts (`validationCategoryNotAllowed`).
    ///
    /// - Parameters:
    ///   - assertionObject: the CBOR map `{"signature": bstr, "authenticatorData": bstr}` the app sent.
    ///   - clientData: the client data the app signed (its exact bytes).
    ///   - publicKey: the key stored from the attestation.
    ///   - previousCounter: the counter stored for this key.
    public func verifyAssertion(
        _ assertionObject: Data, clientData: Data, publicKey: P256.Signing.PublicKey, previousCounter: UInt32
    ) -> AttestationOutcome<AppAttestAssertion> {
        let signature: Data
        let authenticatorData: Data
        do throws(AttestationParseError) {
            let map = try AppAttestCBOR.map(assertionObject, maxBytes: AttestationLimits.maxAssertionObjectBytes, "assertion")
            signature = try AppAttestCBOR.bytes(map, "signature")
            authenticatorData = try AppAttestCBOR.bytes(map, "authenticatorData")
        } catch {
            return AttestationOutcome(
                facts: nil, failures: [.malformed], diagnostics: [AttestationDiagnostic(.malformed, error.description)])
        }
        return verifyAssertion(
            signature: signature, authenticatorData: authenticatorData, clientData: clientData, publicKey: publicKey,
            previousCounter: previousCounter)
    }

    /// The same rules for an assertion whose two parts arrived separately: the production IT-Wallet client
    /// (io-react-native-integrity `decodeAssertion`) sends the CBOR map's `signature` (DER ECDSA) as
    /// `hardware_signature` and its `authenticatorData` as `integrity_assertion`.
    public func verifyAssertion(
        signature: Data, authenticatorData bytes: Data, clientData: Data, publicKey: P256.Signing.PublicKey,
        previousCounter: UInt32
    ) -> AttestationOutcome<AppAttestAssertion> {
        let authenticatorData: AppAttestAuthenticatorData
        do throws(AttestationParseError) {
            guard signature.count <= AttestationLimits.maxAssertionObjectBytes, bytes.count <= AttestationLimits.maxAssertionObjectBytes else {
                throw AttestationParseError("the assertion is larger than \(AttestationLimits.maxAssertionObjectBytes) bytes")
            }
            authenticatorData = try AppAttestAuthenticatorData(bytes, .assertion)
        } catch {
            return AttestationOutcome(
                facts: nil, failures: [.malformed], diagnostics: [AttestationDiagnostic(.malformed, error.description)])
        }

        var failures: [AttestationFailure] = []
        let clientDataHash = Data(SHA256.hash(data: clientData))
        let nonce = Data(SHA256.hash(data: authenticatorData.bytes + clientDataHash))
        let valid = (try? P256.Signing.ECDSASignature(derRepresentation: signature))
            .map { publicKey.isValidSignature($0, for: nonce) } ?? false
        if !valid { failures.append(.assertionSignatureInvalid) }
        let app = policy.app(rpIDHash: authenticatorData.rpIDHash)
        if app == nil { failures.append(.appIDMismatch) }
        if authenticatorData.counter <= previousCounter { failures.append(.assertionCounterNotIncreasing) }
        if !policy.validationCategories.allows(authenticatorData.extensions?.validationCategory) {
            failures.append(.validationCategoryNotAllowed)
        }
        return AttestationOutcome(
            facts: AppAttestAssertion(counter: authenticatorData.counter, app: app, extensions: authenticatorData.extensions),
            failures: failures)
    }
}
