import Crypto
import Foundation
import MDoc
import TesseraCore

/// Why a ``KeyStore`` call failed. Cases name the key identifier at most, never key material (decision 9).
public enum KeyStoreError: Error, Sendable, Equatable {
    /// Key identifiers are `[A-Za-z0-9_-]{1,64}`, so they can never name a path outside the store.
    case invalidKeyID
    /// No key with this identifier.
    case keyNotFound(String)
    /// The key file exists but does not hold a P-256 private key (its content is never echoed).
    case unreadableKey(String)
    /// The key or its directory could not be written.
    case storageFailed(String)
}

/// Where device keys live. On Apple platforms an implementation keeps them in the Secure Enclave and
/// returns a `DeviceKeySigner` that never exports the scalar.
public protocol KeyStore: Sendable {
    /// Creates a new P-256 device key and returns its identifier.
    func createDeviceKey() throws(KeyStoreError) -> String
    /// The signer for the key `id`: it signs DeviceAuthentication and KB-JWTs without handing out the private key.
    func deviceKey(id: String) throws(KeyStoreError) -> any DeviceKeySigner
    /// Deletes the key `id`; ``KeyStoreError/keyNotFound(_:)`` when there is none.
    func deleteKey(id: String) throws(KeyStoreError)
}

/// A directory of PKCS#8 PEM files, the directory 0700 and each file 0600, written atomically. Keys are
/// never logged and error messages name only the key identifier.
public struct FileKeyStore: KeyStore {
    /// The store's directory, created 0700 on the first key.
    public let directory: URL
    /// Where new keys and identifiers come from (injected, ARCHITECTURE.md decision 5).
    public let random: any RandomSource

    /// A store in `directory`; nothing is created until the first key.
    public init(directory: URL, random: any RandomSource = SystemRandomSource()) {
        self.directory = directory
        self.random = random
    }

    /// Writes a new P-256 key to `<id>.key.pem`, created with mode 0600 from the start, and returns its id.
    public func createDeviceKey() throws(KeyStoreError) -> String {
        let id = Base32ID.make(random: random)
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32))
        } catch {
            throw .storageFailed("the random source gave no valid P-256 scalar")
        }
        try ensureDirectory()
        let path = try file(id).path
        let fm = FileManager.default
        // Created with 0600 from the start, so the key is never readable by others, not even briefly.
        guard fm.createFile(atPath: path, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw .storageFailed("cannot write key \(id)")
        }
        return id
    }

    /// Reads `<id>.key.pem` (under 4 KiB) as a software signer.
    public func deviceKey(id: String) throws(KeyStoreError) -> any DeviceKeySigner {
        let url = try file(id)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw .keyNotFound(id) }
        guard data.count < 4096, let key = try? P256.Signing.PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self))
        else { throw .unreadableKey(id) }
        return SoftwareDeviceKey(key)
    }

    /// Deletes `<id>.key.pem`.
    public func deleteKey(id: String) throws(KeyStoreError) {
        let url = try file(id)
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw .keyNotFound(id)
        }
    }

    private func file(_ id: String) throws(KeyStoreError) -> URL {
        guard Base32ID.isValid(id) else { throw .invalidKeyID }
        return directory.appendingPathComponent("\(id).key.pem")
    }

    private func ensureDirectory() throws(KeyStoreError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .storageFailed("cannot create \(directory.path)")
        }
    }
}

/// Identifiers for keys and credentials: 16 random bytes in lowercase RFC 4648 base32 without padding.
enum Base32ID {
    static func make(random: any RandomSource) -> String { Base32.encode(random.bytes(16), lowercase: true) }

    static func isValid(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2d || c == 0x5f
            }
    }
}
