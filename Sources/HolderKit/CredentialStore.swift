import Foundation
import MDoc
import TesseraCore

/// What the wallet knows about one stored credential, without opening it.
public struct CredentialRecord: Codable, Sendable, Equatable {
    /// `mso_mdoc` or `dc+sd-jwt` (the OpenID4VP 1.0 format identifiers).
    public var format: String
    /// The record's identifier in its store: 16 random bytes in lowercase base32 (``DirectoryCredentialStore/newID(random:)``).
    public var id: String
    /// The mdoc docType, or the SD-JWT VC `vct`.
    public var type: String
    /// The device (holder) key in the `KeyStore`.
    public var keyID: String
    /// The credential as issued: IssuerSigned CBOR for mdoc, the SD-JWT compact string for SD-JWT VC.
    public var data: Data
    /// When the credential entered the wallet; ``CredentialStore/records()`` returns records oldest first.
    public var addedAt: Date

    /// A record for a credential as issued; `data` is kept byte for byte (ARCHITECTURE.md decision 1).
    public init(format: String, id: String, type: String, keyID: String, data: Data, addedAt: Date) {
        self.format = format
        self.id = id
        self.type = type
        self.keyID = keyID
        self.data = data
        self.addedAt = addedAt
    }

    /// The ISO mdoc format identifier (OpenID4VP 1.0 Appendix B.2).
    public static let mdocFormat = "mso_mdoc"
    /// The IETF SD-JWT VC format identifier (OpenID4VP 1.0 Appendix B.3).
    public static let sdJWTFormat = "dc+sd-jwt"
}

/// Why a ``CredentialStore`` call failed. Cases carry a record id or a path, never credential content.
public enum CredentialStoreError: Error, Sendable, Equatable {
    /// No credential with this id (or the id is not a valid store identifier).
    case notFound(String)
    /// The record, its file or the directory could not be read or decoded; the wallet is damaged.
    case unreadable(String)
    /// The record could not be written.
    case storageFailed(String)
    /// The credential's device key could not be loaded from the ``KeyStore``.
    case key(KeyStoreError)
    /// ``CredentialStore/mdoc(_:keys:)`` was asked for a record whose format is not ``CredentialRecord/mdocFormat``.
    case notAnMDoc(String)
}

/// The wallet's credentials.
public protocol CredentialStore: Sendable {
    /// Every record, oldest first; a record that cannot be read fails the call (a damaged wallet is reported, not hidden).
    func records() throws(CredentialStoreError) -> [CredentialRecord]
    /// Stores `record`, replacing a record with the same id.
    func save(_ record: CredentialRecord) throws(CredentialStoreError)
    /// Removes the record; ``CredentialStoreError/notFound(_:)`` when there is none.
    func delete(id: String) throws(CredentialStoreError)
}

extension CredentialStore {
    /// An mdoc ready to present: its IssuerSigned (bytes as issued) and its device key.
    public func mdoc(_ record: CredentialRecord, keys: any KeyStore) throws(CredentialStoreError) -> StoredCredential {
        guard record.format == CredentialRecord.mdocFormat else { throw .notAnMDoc(record.id) }
        let issuerSigned: IssuerSigned
        do {
            issuerSigned = try IssuerSigned(bytes: record.data)
        } catch {
            throw .unreadable(record.id)
        }
        do {
            return StoredCredential(docType: record.type, issuerSigned: issuerSigned, deviceKey: try keys.deviceKey(id: record.keyID))
        } catch {
            throw .key(error)
        }
    }
}

/// One JSON file per credential in a directory (0700; files 0600, written atomically).
public struct DirectoryCredentialStore: CredentialStore {
    /// The store's directory, created 0700 on the first save.
    public let directory: URL
    /// Files larger than this are not read (a credential is a few KB).
    public static let maximumFileSize = 1 << 20

    /// A store in `directory`; nothing is created until the first save.
    public init(directory: URL) { self.directory = directory }

    /// Reads every `*.json` file (none larger than ``maximumFileSize``), sorted by ``CredentialRecord/addedAt``, then id.
    public func records() throws(CredentialStoreError) -> [CredentialRecord] {
        let fm = FileManager.default
        guard fm.fileExists(atPath: directory.path) else { return [] }
        let names: [String]
        do {
            names = try fm.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw .unreadable(directory.path)
        }
        var result: [CredentialRecord] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            let url = directory.appendingPathComponent(name)
            guard let data = fm.contents(atPath: url.path), data.count <= Self.maximumFileSize else { throw .unreadable(name) }
            do {
                result.append(try Self.decoder.decode(CredentialRecord.self, from: data))
            } catch {
                throw .unreadable(name)
            }
        }
        return result.sorted { ($0.addedAt, $0.id) < ($1.addedAt, $1.id) }
    }

    /// Writes `<id>.json` atomically with mode 0600; the id must be a store identifier, so it cannot name another path.
    public func save(_ record: CredentialRecord) throws(CredentialStoreError) {
        guard Base32ID.isValid(record.id) else { throw .storageFailed("invalid credential id") }
        let fm = FileManager.default
        do {
            try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let url = directory.appendingPathComponent("\(record.id).json")
            try Self.encoder.encode(record).write(to: url, options: .atomic)
            try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw .storageFailed("cannot write credential \(record.id)")
        }
    }

    /// Deletes `<id>.json`.
    public func delete(id: String) throws(CredentialStoreError) {
        guard Base32ID.isValid(id) else { throw .notFound(id) }
        do {
            try FileManager.default.removeItem(at: directory.appendingPathComponent("\(id).json"))
        } catch {
            throw .notFound(id)
        }
    }

    /// A new credential identifier from the random source.
    public static func newID(random: any RandomSource) -> String { Base32ID.make(random: random) }

    private static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        e.dateEncodingStrategy = .iso8601
        e.dataEncodingStrategy = .base64
        return e
    }

    private static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }
}
