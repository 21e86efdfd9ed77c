import Foundation
import ITWalletProtocol

/// What the wallet keeps about its instance, persisted as one JSON file replaced atomically (write the new file,
/// then rename it over the old one), so a crash leaves either the old or the new state, never a torn one.
public struct WalletInstanceRecord: Codable, Sendable, Equatable {
    /// Where the instance is in its lifecycle.
    public var state: WalletInstanceState
    /// The Wallet Provider the instance was activated with (its entity id).
    public var providerURL: String?
    /// The hardware key in the `KeyStore`, and the tag the provider knows it by.
    public var hardwareKeyID: String?
    /// `hardware_key_tag`, how the provider knows the hardware key.
    public var hardwareKeyTag: String?
    /// The last Wallet Attestation and its ephemeral key (PEM), with its expiry.
    public var walletAttestation: String?
    /// The private key the Wallet Attestation is bound to (`cnf.jwk`), PKCS#8 PEM: a secret of this device.
    public var attestationKeyPEM: String?
    /// The Wallet Attestation's `exp`; ``WalletInstanceClient/reissue()`` gets a new one before it.
    public var attestationExpiresAt: Date?
    /// Every transition applied, oldest first.
    public var history: [Transition]
    /// The IT-Wallet version the instance speaks with its provider (negotiated or forced at activation).
    public var specVersion: ITWalletVersion?
    /// The kept attestation's `iat`: the refresh margin is a share of its life.
    public var attestationIssuedAt: Date?
    /// 1.0: every format of the last Wallet Attestation answer (`jwt`, `dc+sd-jwt`, `mso_mdoc`), as received.
    public var attestationFormats: [String: String]?
    /// 1.5: the WIA's `client_status` entry, checked at each refresh.
    public var clientStatus: ClientStatusReference?
    /// Key Attestations obtained for wallet keys (1.3, 1.5), newest last.
    public var keyAttestations: [KeptKeyAttestation]?

    /// One applied lifecycle event.
    public struct Transition: Codable, Sendable, Equatable {
        /// The event's name in the lifecycle (the `rawValue` of a ``WalletInstanceEvent``, e.g. `WI ACT`).
        public var event: String
        /// The state before the event.
        public var from: WalletInstanceState
        /// The state after the event.
        public var to: WalletInstanceState
        /// When the event was applied.
        public var at: Date
    }

    /// A fresh install: Installed, no provider, no history. What ``WalletInstanceStore/load()`` returns when there is no file.
    public static let installed = WalletInstanceRecord(state: .installed, history: [])

    /// base64url(SHA-256(hardware_key_tag)), the provider's instance id.
    public var instanceID: String? { hardwareKeyTag.map(InstanceID.of) }
}

/// The lifecycle on disk: `instance.json` in the wallet directory.
public struct WalletInstanceStore: Sendable {
    /// `instance.json` in the wallet directory.
    public let file: URL

    /// The store of the wallet in `directory`.
    public init(directory: URL) { file = directory.appendingPathComponent("instance.json") }

    /// The saved record, or ``WalletInstanceRecord/installed`` when there is none; a damaged file is an error, not a fresh install.
    public func load() throws(WalletInstanceError) -> WalletInstanceRecord {
        guard let data = FileManager.default.contents(atPath: file.path) else { return .installed }
        guard data.count < 1 << 20, let record = try? Self.decoder.decode(WalletInstanceRecord.self, from: data) else {
            throw .storage("\(file.lastPathComponent) is unreadable")
        }
        return record
    }

    /// Writes `record` to a new 0600 file and renames it over `instance.json`.
    public func save(_ record: WalletInstanceRecord) throws(WalletInstanceError) {
        let directory = file.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".instance.json.new")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let data = try Self.encoder.encode(record)
            guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw WalletInstanceError.storage("cannot write \(temporary.lastPathComponent)")
            }
            if rename(temporary.path, file.path) != 0 { throw WalletInstanceError.storage("cannot replace \(file.lastPathComponent)") }
        } catch let error as WalletInstanceError {
            throw error
        } catch {
            throw .storage("cannot save the instance state")
        }
    }

    /// Applies a lifecycle event: checked against the transition table, recorded, saved.
    @discardableResult
    public func apply(_ event: WalletInstanceEvent, at instant: Date, update: (inout WalletInstanceRecord) -> Void = { _ in })
        throws(WalletInstanceError) -> WalletInstanceRecord
    {
        var record = try load()
        guard let next = record.state.after(event) else { throw .illegalTransition(from: record.state, event: event) }
        record.history.append(.init(event: event.rawValue, from: record.state, to: next, at: instant))
        record.state = next
        update(&record)
        try save(record)
        return record
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
