import Foundation
import HolderKit
import ITWalletProtocol
import TesseraHTTP
import TesseraJOSE
import TesseraTrust
import WalletInstanceKit
import WalletInstanceKitTesting
import DeviceAttestationTesting

/// The IT-Wallet 1.5 part of the Wallet Provider demo: an instance activated in 1.5 (the newest version the
/// provider's Entity Configuration advertises), its Wallet Instance Attestation verified by x5c to the provider's
/// signing root with its `client_status`, a Key Attestation for a new wallet key, then a revocation made at the
/// provider (as the portal does) that flips the instance's status bit, read before and after from the Token Status
/// List, and seen by the wallet at its next refresh (WI REV).
enum DemoWalletInstance15 {
    static func run(provider: String, providerDirectory: URL, wallet: URL, authority: AndroidTestAttestationAuthority, session: String) async throws {
        print("\nIT-Wallet 1.5 instance (Wallet Instance Attestation with x5c and client_status, Key Attestation):")
        let rootPath = providerDirectory.appendingPathComponent("signing/root.pem").path
        guard let pem = FileManager.default.contents(atPath: rootPath) else { throw UserFacingError("no signing root at \(rootPath)") }
        let anchors = try TrustAnchors(pemBundle: String(decoding: pem, as: UTF8.self)).certificates
        let integrity = TestDeviceIntegrityService(
            keys: FileKeyStore(directory: wallet.appendingPathComponent("keys")), authority: authority, application: TestIntegrity.androidApp)
        let client = WalletInstanceClient(store: WalletInstanceStore(directory: wallet), integrity: integrity, http: SharedHTTP.client)
        let attester = WalletInstanceAttester(client: client, anchors: anchors, solution: .init(platform: .android))
        let entity = try await attester.discover(provider: provider)
        print("  the provider advertises IT-Wallet \(entity.versions.sorted().map(\.rawValue).joined(separator: ", "))")
        let record = try await attester.activate(provider: provider, session: session)
        let jwt = record.walletAttestation ?? ""
        let jws = try CompactJWS(parsing: jwt)
        let claims = try jws.payloadJSON()
        print("  activated in IT-Wallet \(record.specVersion?.rawValue ?? "?"): state \(record.state.rawValue)")
        print("  WIA \(jws.type ?? "?"), x5c of \(jws.header["x5c"]?.arrayValue?.count ?? 0) certificate(s), verified to the signing root")
        for name in ["sub", "wallet_name", "wallet_version", "client_status", "iat", "exp"] {
            if let value = claims[name] { print("    \(name): \(value.serializedString)") }
        }
        let keyAttestation = try await attester.keyAttest(keys: integrity)
        let kaClaims = try CompactJWS(parsing: keyAttestation.jwt).payloadJSON()
        print("  Key Attestation (key-attestation+jwt) for wallet key \(keyAttestation.keyIDs.joined(separator: ", ")):")
        for name in ["key_storage", "user_authentication", "key_storage_status"] {
            if let value = kaClaims[name] { print("    \(name): \(value.serializedString)") }
        }
        guard let reference = record.clientStatus, let id = record.instanceID else { throw UserFacingError("the WIA has no client_status") }
        let before = try await attester.readClientStatus(reference)
        print("  status bit at idx \(reference.index) of \(reference.uri): \(before.status) (\(before.isValid ? "VALID" : "INVALID"))")
        try await revokeAtProvider(provider: provider, instance: id, session: session)
        let after = try await attester.readClientStatus(reference)
        print("the user revokes the 1.5 instance at the provider (the account API behind the portal's Revoke button); the list says:")
        print("  status bit at idx \(reference.index): \(after.status) (\(after.isValid ? "VALID" : "INVALID"))")
        let outcome = try await attester.refreshIfNeeded()
        let state = try client.store.load()
        let path = state.history.map { "\($0.event): \($0.from.rawValue) → \($0.to.rawValue)" }.joined(separator: ", ")
        print("  the wallet's next refresh: \(outcome), state \(state.state.rawValue)   [\(path)]")
    }

    /// The account API's revocation (what the portal's Revoke button calls), not through this wallet.
    private static func revokeAtProvider(provider: String, instance: String, session: String) async throws {
        guard let url = URL(string: provider + "/api/wallet-instances/" + instance + "/revoke") else { throw UserFacingError("invalid URL") }
        let response = try await SharedHTTP.client.send(HTTPRequest(method: .post, url: url, headers: [("Authorization", "Bearer " + session)]))
        guard response.status == 204 else { throw UserFacingError("revocation answered \(response.status)") }
    }
}
