import Foundation

/// What the wallet keeps about its instance, persisted as one JSON file replaced atomically (write the new file,
/// then rename it over the old one), so a crash leaves either the old or the new state, never a torn one.
public struct WalletInstanceRecord: Codable, Sendable, Equatable {
    public var state: WalletInstanceState
    public var providerURL: String?
    /// The hardware key in the `KeyStore`, and the tag the provider knows it by.
    public var hardwareKeyID: String?
    public var hardwareKeyTag: String?
    /// The last Wallet Attestation and its ephemeral key (PEM), with its expiry.
    public var walletAttestation: String?
    public var attestationKeyPEM: String?
    public var attestationExpiresAt: Date?
    public var history: [Transition]

    public struct Transition: Codable, Sendable, Equatable {
        public var event: String
        public var from: WalletInstanceState
        public var to: WalletInstanceState
        public var at: Date
    }

    public static let installed = WalletInstanceRecord(state: .installed, history: [])

    /// base64url(SHA-256(hardware_key_tag)), the provider's instance id.
    public var instanceID: String? { hardwareKeyTag.map(InstanceID.of) }
}

/// The lifecycle on disk: `instance.json` in the wallet directory.
public struct WalletInstanceStore: Sendable {
    public let file: URL

    public init(directory: URL) { file = directory.appendingPathComponent("instance.json") }

    public func load() throws(WalletInstanceError) -> WalletInstanceRecord {
        guard let data = FileManager.default.contents(atPath: file.path) else { return .installed }
        guard data.count < 1 << 20, let record = try? Self.decoder.decode(WalletInstanceRecord.self, from: data) else {
            throw .storage("\(file.lastPathComponent) is unreadable")
        }
        return record
    }

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
