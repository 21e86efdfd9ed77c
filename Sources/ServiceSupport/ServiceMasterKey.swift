import Crypto
import Foundation
import TesseraCore

/// An operator's key that seals what a service stores (ChaCha20-Poly1305, the row's purpose and id as AAD, so a
/// sealed value cannot be moved to another row). Kept in a file of 32 random bytes, created with mode 0600; a file
/// with other permissions or size is refused. The Ledger keeps `ledger-master.key`, vault hosts `vault-master.key`.
public struct ServiceMasterKey: Sendable {
    private let key: SymmetricKey

    public init(key: SymmetricKey) { self.key = key }

    public static func loadOrCreate(file: URL, random: any RandomSource) throws(ServiceStartupError) -> ServiceMasterKey {
        let fm = FileManager.default
        do {
            try fm.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ServiceStartupError("cannot create \(file.deletingLastPathComponent().path)")
        }
        if !fm.fileExists(atPath: file.path) {
            guard fm.createFile(atPath: file.path, contents: random.bytes(32), attributes: [.posixPermissions: 0o600]) else {
                throw ServiceStartupError("cannot create \(file.path)")
            }
        }
        guard let attributes = try? fm.attributesOfItem(atPath: file.path),
            (attributes[.posixPermissions] as? Int).map({ $0 & 0o077 == 0 }) ?? false
        else { throw ServiceStartupError("\(file.path) must not be readable by group or others (chmod 600)") }
        guard let bytes = fm.contents(atPath: file.path), bytes.count == 32 else {
            throw ServiceStartupError("\(file.path) must hold exactly 32 bytes")
        }
        return ServiceMasterKey(key: SymmetricKey(data: bytes))
    }

    public func seal(_ plaintext: Data, purpose: String, id: String) throws(WireError) -> Data {
        guard let box = try? ChaChaPoly.seal(plaintext, using: key, authenticating: Data("\(purpose)|\(id)".utf8)) else { throw .server }
        return box.combined
    }

    public func open(_ sealed: Data, purpose: String, id: String) throws(WireError) -> Data {
        guard let box = try? ChaChaPoly.SealedBox(combined: sealed),
            let plaintext = try? ChaChaPoly.open(box, using: key, authenticating: Data("\(purpose)|\(id)".utf8))
        else { throw .server }
        return plaintext
    }
}

/// A service that cannot start: the text says what to fix.
public struct ServiceStartupError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
