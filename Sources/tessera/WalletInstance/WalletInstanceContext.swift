import Foundation
import HolderKit
import OpenID4VP
import TesseraJOSE
import WalletInstanceKit
import WalletProvider
import TesseraHTTP
import TesseraTrust
import WalletInstanceKitTesting

/// The pieces the `wallet-instance` commands share: the instance store, the key store, the test integrity
/// service and an HTTP client.
struct WalletInstanceContext {
    let walletDirectory: URL
    let client: WalletInstanceClient
    /// The test integrity service, which also makes and attests wallet keys for Key Attestation.
    let integrity: TestDeviceIntegrityService

    init(wallet: String?) throws {
        walletDirectory = TesseraHome.wallet(wallet)
        integrity = TestDeviceIntegrityService(
            keys: FileKeyStore(directory: walletDirectory.appendingPathComponent("keys")),
            authority: try TestIntegrity.authority(), application: TestIntegrity.androidApp)
        client = WalletInstanceClient(
            store: WalletInstanceStore(directory: walletDirectory), integrity: integrity, http: SharedHTTP.client)
    }

    /// The versioned flows (1.0, 1.3, 1.5), trusting `anchor` (PEM; default: the local provider's test signing root,
    /// $TESSERA_HOME/provider/signing/root.pem) for the provider's x5c. The test integrity service plays Android.
    func attester(anchor: String?) throws -> WalletInstanceAttester {
        let path = anchor ?? TesseraHome.url.appendingPathComponent("provider/signing/root.pem").path
        guard let pem = FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }),
            let anchors = try? TrustAnchors(pemBundle: pem), !anchors.isEmpty
        else { throw UserFacingError("no trust anchor for the provider's signing chain at \(path) (--anchor PEM)") }
        return WalletInstanceAttester(client: client, anchors: anchors.certificates, solution: .init(platform: .android))
    }

    /// The wallet's credentials (`tessera wallet add-pid` puts the PID there) against the instance's state.
    var pidSync: PIDSync {
        PIDSync(store: client.store, credentials: DirectoryCredentialStore(directory: walletDirectory.appendingPathComponent("credentials")))
    }

    func account() throws -> ProviderAccount {
        try ProviderAccount.load(wallet: walletDirectory)
    }

    func print(_ record: WalletInstanceRecord, json: Bool) {
        if json {
            var object: JSONObject = ["state": .string(record.state.rawValue)]
            if let provider = record.providerURL { object["provider"] = .string(provider) }
            if let id = record.instanceID { object["instance_id"] = .string(id) }
            if let spec = record.specVersion { object["spec"] = .string(spec.rawValue) }
            if let expiry = record.attestationExpiresAt { object["attestation_expires_at"] = .integer(Int64(expiry.timeIntervalSince1970)) }
            object["history"] = .array(record.history.map { .object(["event": .string($0.event), "from": .string($0.from.rawValue), "to": .string($0.to.rawValue)]) })
            Swift.print(JSONValue.object(object).serializedString)
        } else {
            Swift.print("state: \(record.state.rawValue)")
            if let provider = record.providerURL { Swift.print("provider: \(provider)") }
            if let spec = record.specVersion { Swift.print("spec: IT-Wallet \(spec.rawValue)") }
            for step in record.history { Swift.print("  \(step.event): \(step.from.rawValue) → \(step.to.rawValue)") }
        }
    }
}

/// The account login the CLI keeps for the wallet (`account.json`, 0600): the provider, e-mail, password and
/// the TOTP secret, as an authenticator app would, plus the current session so that two commands within one
/// 30-second TOTP step do not need the same code twice (the provider accepts each step once).
struct ProviderAccount: Codable {
    var provider: String
    var email: String
    var password: String
    var totpSecret: String
    var session: String?
    var sessionExpiresAt: Double?
    var file: URL?

    enum CodingKeys: String, CodingKey { case provider, email, password, totpSecret, session, sessionExpiresAt }

    static func load(wallet: URL) throws -> ProviderAccount {
        let file = wallet.appendingPathComponent("account.json")
        guard let data = FileManager.default.contents(atPath: file.path), var account = try? JSONDecoder().decode(Self.self, from: data) else {
            throw UserFacingError("no account: run `tessera wallet-instance signup --provider URL --email … --password …` first")
        }
        account.file = file
        return account
    }

    func save() throws {
        guard let file else { return }
        let data = try JSONEncoder().encode(self)
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".account.json.new")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]),
            rename(temporary.path, file.path) == 0
        else { throw UserFacingError("cannot write \(file.path)") }
    }

    static func signUp(provider: String, email: String, password: String, wallet: URL) async throws -> String {
        let base = provider.hasSuffix("/") ? String(provider.dropLast()) : provider
        let body: JSONObject = ["email": .string(email), "password": .string(password)]
        let answer = try await post(base + "/api/accounts", body, expect: 201)
        guard let id = answer["account_id"]?.stringValue, let secret = answer["totp_secret"]?.stringValue else {
            throw UserFacingError("the provider's sign-up answer is incomplete")
        }
        try FileManager.default.createDirectory(at: wallet, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var account = ProviderAccount(provider: base, email: email, password: password, totpSecret: secret)
        account.file = wallet.appendingPathComponent("account.json")
        try account.save()
        return id
    }

    /// The kept session while it lasts, else a new login with password and the current TOTP code.
    mutating func logIn() async throws -> String {
        if let session, let expiry = sessionExpiresAt, expiry > Date().timeIntervalSince1970 + 30 { return session }
        guard let totp = TOTP(base32Secret: totpSecret) else { throw UserFacingError("the kept TOTP secret is not base32") }
        let body: JSONObject = ["email": .string(email), "password": .string(password), "totp": .string(totp.code(at: Date()))]
        let answer = try await Self.post(provider + "/api/login", body, expect: 200)
        guard let token = answer["session_token"]?.stringValue else { throw UserFacingError("the provider gave no session") }
        session = token
        sessionExpiresAt = answer["expires_at"]?.doubleValue
        try save()
        return token
    }

    static func post(_ url: String, _ body: JSONObject, expect: Int) async throws -> JSONObject {
        guard let target = URL(string: url) else { throw UserFacingError("invalid URL \(url)") }
        let request = HTTPRequest(method: .post, url: target, headers: [("Content-Type", "application/json")], body: body.serialized())
        let response = try await SharedHTTP.client.send(request)
        let answer = (try? JSONValue.parse(response.body))?.objectValue ?? [:]
        guard response.status == expect else {
            throw UserFacingError("the provider answered \(response.status) \(answer["error"]?.stringValue ?? ""): \(answer["error_description"]?.stringValue ?? "")")
        }
        return answer
    }
}
