#if !canImport(DeviceCheck)
import Crypto
import DeviceAttestation
import DeviceCheckDouble
import Foundation
import Synchronization
import DeviceAttestationTesting

/// An iPhone's App Attest as `DCAppAttestService` reaches it, for the DeviceCheck double: keys made and kept here
/// (the Secure Enclave's part), attestation objects from a test App Attestation authority (Apple's servers' part),
/// assertions with a per-key counter. Run code under `DCAppAttestService.withScript(device)`.
public final class AppAttestTestDevice: DCAppAttestServiceScript {
    /// What the app asked, in order.
    public enum Call: Sendable, Hashable {
        case generateKey
        case attestKey(keyID: String, clientDataHash: Data)
        case generateAssertion(keyID: String, clientDataHash: Data)
    }

    public let authority: AppAttestTestAuthority
    public let app: AppAttestAppID
    public let environment: AppAttestEnvironment
    private let now: @Sendable () -> Date

    private struct State {
        var supported = true
        var keys: [String: P256.Signing.PrivateKey] = [:]
        var counters: [String: UInt32] = [:]
        var calls: [Call] = []
        var assertions: [Data] = []
        var assertionFailure: DCError?
        var attestationFailure: DCError?
        var assertionOverride: Data?
    }

    private let state = Mutex(State())

    public init(
        authority: AppAttestTestAuthority, app: AppAttestAppID, environment: AppAttestEnvironment = .production,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.authority = authority
        self.app = app
        self.environment = environment
        self.now = now
    }

    public var isSupported: Bool { state.withLock { $0.supported } }

    /// Makes the device one without App Attest.
    public func setSupported(_ supported: Bool) { state.withLock { $0.supported = supported } }

    /// The next `generateAssertion` fails with `error`.
    public func failNextAssertion(with error: DCError) { state.withLock { $0.assertionFailure = error } }

    /// The next `attestKey` fails with `error`.
    public func failNextAttestation(with error: DCError) { state.withLock { $0.attestationFailure = error } }

    /// The next `generateAssertion` returns these bytes instead of an assertion.
    public func returnNextAssertion(_ bytes: Data) { state.withLock { $0.assertionOverride = bytes } }

    public var calls: [Call] { state.withLock { $0.calls } }

    /// The assertion objects returned, in order.
    public var assertions: [Data] { state.withLock { $0.assertions } }

    /// The public key of an App Attest key.
    public func publicKey(_ keyID: String) -> P256.Signing.PublicKey? { state.withLock { $0.keys[keyID]?.publicKey } }

    /// A new P-256 key; its identifier is base64(SHA-256(X9.63 public key)), as on a device.
    public func generateKey() async throws -> String {
        let key = P256.Signing.PrivateKey()
        let keyID = Data(SHA256.hash(data: key.publicKey.x963Representation)).base64EncodedString()
        state.withLock {
            $0.calls.append(.generateKey)
            $0.keys[keyID] = key
        }
        return keyID
    }

    public func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        let (key, failure) = state.withLock { state in
            state.calls.append(.attestKey(keyID: keyId, clientDataHash: clientDataHash))
            defer { state.attestationFailure = nil }
            return (state.keys[keyId], state.attestationFailure)
        }
        if let failure { throw failure }
        guard let key else { throw DCError(.invalidKey) }
        return try authority.attest(
            publicKey: key.publicKey, app: app, environment: environment, clientDataHash: clientDataHash, at: now()
        ).attestationObject
    }

    /// `{signature, authenticatorData}` over SHA-256(authenticatorData ‖ clientDataHash), counter one higher each time.
    public func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        let (key, counter, failure, override) = state.withLock { state in
            state.calls.append(.generateAssertion(keyID: keyId, clientDataHash: clientDataHash))
            defer {
                state.assertionFailure = nil
                state.assertionOverride = nil
            }
            let counter = (state.counters[keyId] ?? 0) &+ 1
            if state.keys[keyId] != nil { state.counters[keyId] = counter }
            return (state.keys[keyId], counter, state.assertionFailure, state.assertionOverride)
        }
        if let failure { throw failure }
        if let override { return override }
        guard let key else { throw DCError(.invalidKey) }
        let authenticatorData = AppAttestTestAuthority.assertionAuthenticatorData(app: app, counter: counter)
        let nonce = Data(SHA256.hash(data: authenticatorData + clientDataHash))
        let signature = try key.signature(for: nonce)
        let object = AppAttestTestAuthority.assertionObject(
            signatureDER: signature.derRepresentation, authenticatorData: authenticatorData)
        state.withLock { $0.assertions.append(object) }
        return object
    }
}
#endif
