import Argon2
import DeviceAttestation
import Foundation
import HolderKit
import TesseraJOSE
import WalletInstanceKit
import WalletProvider
import DeviceAttestationTesting
import WalletInstanceKitTesting

/// The IT-Wallet part of `tessera demo`: a Wallet Provider in process on loopback (SQLite in a temporary home,
/// trusting the Linux test attestation root), an account, then a wallet instance on a simulated Android device
/// activated through it (federation check, nonce, key attestation, registration, Wallet Attestation), a PID that
/// makes it Valid, a second instance on a simulated iOS device (App Attest format) taking the PID over, and a
/// revocation.
enum DemoWalletProvider {
    /// Argon2id at a demo cost: `swift run` builds for debugging, where the RFC 9106 default takes seconds.
    static let demoPasswordCost = Argon2Parameters(memoryKiB: 19_456, iterations: 2, parallelism: 1)

    static func run() async throws {
        print("== IT-Wallet: Wallet Instances activated at an in-process Wallet Provider ==")
        let fm = FileManager.default
        let home = fm.temporaryDirectory.appendingPathComponent("tessera-demo-provider-\(UUID().uuidString.prefix(8))")
        defer { try? fm.removeItem(at: home) }
        var environment = ProcessInfo.processInfo.environment
        environment["TESSERA_HOME"] = home.path
        let authority = try TestIntegrity.authority(in: home.appendingPathComponent("device-integrity"))
        let providerDirectory = home.appendingPathComponent("provider")
        let configuration = try ProviderSetup.configuration(
            directory: providerDirectory, database: providerDirectory.appendingPathComponent("provider.sqlite").path, baseURL: nil,
            testRoot: home.appendingPathComponent("device-integrity/root-certificate.pem").path, appleApps: [], androidApps: [],
            authorityHints: [], allowDevelopment: false)
        let server: WalletProviderServer
        do {
            server = try await WalletProviderServer.start(configuration, port: 0, passwordParameters: demoPasswordCost)
        } catch {
            throw UserFacingError(error.description)
        }
        do {
            try await walkThrough(server: server, authority: authority, home: home, environment: environment)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    private static func walkThrough(
        server: WalletProviderServer, authority: AndroidTestAttestationAuthority, home: URL, environment: [String: String]
    ) async throws {
        print("wallet provider: \(server.baseURL) (federation key \(server.keyID), test attestation root trusted)")
        let android = home.appendingPathComponent("wallet"), ios = home.appendingPathComponent("wallet-ios")
        _ = try await ProviderAccount.signUp(provider: server.baseURL, email: "demo@example.org", password: "tessera demo password", wallet: android)
        var account = try ProviderAccount.load(wallet: android)
        let session = try await account.logIn()
        print("account: demo@example.org, logged in with password (Argon2id) and TOTP code")

        let androidClient = WalletInstanceClient(
            store: WalletInstanceStore(directory: android),
            integrity: TestDeviceIntegrityService(
                keys: FileKeyStore(directory: android.appendingPathComponent("keys")), authority: authority,
                application: TestIntegrity.androidApp),
            http: SharedHTTP.client)
        print("\nAndroid instance (key attestation chain under the test root):")
        let activated = try await androidClient.activate(provider: server.baseURL, session: session)
        show(activated)
        try showClaims(of: activated)

        let added = try await Child.run(["wallet", "add-pid"], environment: environment)
        guard added.status == 0 else { throw UserFacingError("wallet add-pid failed: \(added.stderr)") }
        let credentials = DirectoryCredentialStore(directory: android.appendingPathComponent("credentials"))
        if try PIDSync(store: androidClient.store, credentials: credentials).sync(at: Date()) == .pidIssued {
            try await androidClient.reportPID(active: true, session: session)
        }
        print("a PID (SD-JWT VC urn:eudi:pid:*) is added to the wallet:")
        show(try androidClient.store.load())

        print("\niOS instance of the same account (App Attest object and assertions under the test root):")
        let iosClient = WalletInstanceClient(
            store: WalletInstanceStore(directory: ios),
            integrity: TestAppAttestIntegrityService(
                keys: FileKeyStore(directory: ios.appendingPathComponent("keys")),
                authority: AppAttestTestAuthority(sharing: authority), app: TestIntegrity.appleApp),
            http: SharedHTTP.client)
        _ = try await iosClient.activate(provider: server.baseURL, session: session)
        if try PIDSync(store: iosClient.store, credentials: credentials).sync(at: Date()) == .pidIssued {
            try await iosClient.reportPID(active: true, session: session)
        }
        show(try iosClient.store.load())
        _ = try await androidClient.refreshStatus(session: session)
        print("the Android instance learns that its PID moved to the newer instance:")
        show(try androidClient.store.load())

        print("\nthe user revokes the Android instance:")
        show(try await androidClient.revoke(session: session))
        let view = try await androidClient.refreshStatus(session: session)
        print("  the provider's record: status \(view["status"]?.stringValue ?? "?"), hardware key tag removed from the account")
        try await DemoWalletInstance15.run(
            provider: server.baseURL, providerDirectory: home.appendingPathComponent("provider"),
            wallet: home.appendingPathComponent("wallet-15"), authority: authority, session: session)
    }

    private static func show(_ record: WalletInstanceRecord) {
        let path = record.history.map { "\($0.event): \($0.from.rawValue) → \($0.to.rawValue)" }.joined(separator: ", ")
        print("  state \(record.state.rawValue)   [\(path)]")
    }

    private static func showClaims(of record: WalletInstanceRecord) throws {
        guard let jwt = record.walletAttestation else { throw UserFacingError("no Wallet Attestation") }
        let jws = try CompactJWS(parsing: jwt)
        let claims = try jws.payloadJSON()
        print("  Wallet Attestation (\(jws.type ?? "?"), \(jwt.utf8.count) bytes), claims:")
        for name in ["iss", "sub", "aal", "authorization_endpoint", "iat", "exp", "presentation_definition_uri_supported"] {
            if let value = claims[name] { print("    \(name): \(value.serializedString)") }
        }
        if let jwk = claims["cnf"]?["jwk"]?.objectValue { print("    cnf.jwk: \(JSONValue.object(jwk).serializedString)") }
    }
}
