#if canImport(DeviceCheck)
    import Crypto
    import DeviceCheck
    import Foundation

    /// The Device Integrity Service on Apple platforms: App Attest (`DCAppAttestService`). The hardware key is the
    /// App Attest key, its tag the keyId; both proofs of a Wallet Attestation request are App Attest assertions over
    /// client_data. App Attest keys cannot be deleted: `deleteKey` forgets nothing and a new activation makes a new key.
    @available(iOS 14.0, macOS 11.0, tvOS 15.0, watchOS 9.0, *)
    public struct AppAttestIntegrityService: DeviceIntegrityService {
        public init() {}

        /// `attestKey` with clientDataHash = SHA-256(challenge).
        public func createAttestedKey(challenge: String) async throws(WalletInstanceError) -> AttestedKey {
            let service = DCAppAttestService.shared
            guard service.isSupported else { throw .integrity("App Attest is not supported on this device") }
            do {
                let keyID = try await service.generateKey()
                let attestation = try await service.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))))
                return AttestedKey(keyID: keyID, hardwareKeyTag: keyID, keyAttestation: attestation.base64EncodedString())
            } catch {
                throw .integrity("App Attest refused to attest the key: \(error.localizedDescription)")
            }
        }

        public func hardwareSignature(keyID: String, clientData: Data) async throws(WalletInstanceError) -> String {
            try await assertion(keyID: keyID, clientData: clientData)
        }

        public func integrityAssertion(keyID: String, clientData: Data) async throws(WalletInstanceError) -> String {
            try await assertion(keyID: keyID, clientData: clientData)
        }

        public func deleteKey(keyID: String) async {}

        private func assertion(keyID: String, clientData: Data) async throws(WalletInstanceError) -> String {
            do {
                return try await DCAppAttestService.shared
                    .generateAssertion(keyID, clientDataHash: Data(SHA256.hash(data: clientData))).base64EncodedString()
            } catch {
                throw .integrity("App Attest refused an assertion: \(error.localizedDescription)")
            }
        }
    }
#endif
