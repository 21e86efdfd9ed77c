import Crypto
import Foundation
import ServiceSupport
import TesseraCore

/// The operator's key that seals every private key and LAT the ledger stores (ChaCha20-Poly1305, the row's purpose
/// and id as AAD, so a sealed value cannot be moved to another row). Kept in `ledger-master.key`: 32 random bytes,
/// created with mode 0600; a file with other permissions or size is refused.
struct MasterKey: Sendable {
    static let fileName = "ledger-master.key"
    private let key: SymmetricKey

    init(key: SymmetricKey) { self.key = key }

    static func loadOrCreate(in directory: URL, random: any RandomSource) throws -> MasterKey {
        let file = directory.appendingPathComponent(fileName)
        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if !fm.fileExists(atPath: file.path) {
            let bytes = random.bytes(32)
            guard fm.createFile(atPath: file.path, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
                throw LedgerError.startup("cannot create \(file.path)")
            }
        }
        let attributes = try fm.attributesOfItem(atPath: file.path)
        guard (attributes[.posixPermissions] as? Int).map({ $0 & 0o077 == 0 }) ?? false else {
            throw LedgerError.startup("\(file.path) must not be readable by group or others (chmod 600)")
        }
        guard let bytes = fm.contents(atPath: file.path), bytes.count == 32 else {
            throw LedgerError.startup("\(file.path) must hold exactly 32 bytes")
        }
        return MasterKey(key: SymmetricKey(data: bytes))
    }

    func seal(_ plaintext: Data, purpose: String, id: String) throws(WireError) -> Data {
        guard let box = try? ChaChaPoly.seal(plaintext, using: key, authenticating: Data("\(purpose)|\(id)".utf8)) else { throw .server }
        return box.combined
    }

    func open(_ sealed: Data, purpose: String, id: String) throws(WireError) -> Data {
        guard let box = try? ChaChaPoly.SealedBox(combined: sealed),
            let plaintext = try? ChaChaPoly.open(box, using: key, authenticating: Data("\(purpose)|\(id)".utf8))
        else { throw .server }
        return plaintext
    }
}

public enum LedgerError: Error, Sendable, CustomStringConvertible {
    case startup(String)

    public var description: String {
        switch self {
        case .startup(let why): "the ledger cannot start: \(why)"
        }
    }
}
