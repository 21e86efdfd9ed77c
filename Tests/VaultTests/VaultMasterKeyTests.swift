import Foundation
import ServiceSupport
import TesseraCore
import Testing
import Vault

@Suite struct VaultMasterKeyTests {
    @Test func createdOnceWithMode0600AndRefusedWhenReadableByOthers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-master-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = VaultHostConfiguration(directory: directory, database: .sqlite(path: directory.appendingPathComponent("v.sqlite").path))
        let first = try configuration.masterKey()
        let sealed = try first.seal(Data("secret".utf8), purpose: "data-key", id: "u1")
        #expect(try configuration.masterKey().open(sealed, purpose: "data-key", id: "u1") == Data("secret".utf8))
        #expect(throws: WireError.self) { try first.open(sealed, purpose: "data-key", id: "u2") }
        let file = directory.appendingPathComponent(VaultHostConfiguration.masterKeyFileName).path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(throws: ServiceStartupError.self) { try configuration.masterKey() }
    }
}
