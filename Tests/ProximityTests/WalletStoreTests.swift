import Crypto
import Foundation
import MDoc
import ProximityTransport
import TesseraCore
import Testing

@testable import HolderKit

/// The Linux services: file KeyStore, directory CredentialStore, the loopback radio's gate, BLE Ident.
@Suite struct WalletStoreTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-wallet-\(UUID().uuidString)")
    }

    @Test func keysAreOwnerOnlyAndSign() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileKeyStore(directory: directory, random: SeededRandomSource(seed: 1))
        let id = try store.createDeviceKey()
        let path = directory.appendingPathComponent("\(id).key.pem").path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let dirAttributes = try FileManager.default.attributesOfItem(atPath: directory.path)
        #expect((dirAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let key = try store.deviceKey(id: id)
        let signature = try await key.sign(Data("hello".utf8))
        guard case .ec2(.p256, let x, let y, _) = key.publicKey.material else { Issue.record("not P-256"); return }
        let publicKey = try P256.Signing.PublicKey(x963Representation: Data([4]) + x + y)
        #expect(publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: Data("hello".utf8)))
        try store.deleteKey(id: id)
        #expect(throws: KeyStoreError.keyNotFound(id)) { try store.deviceKey(id: id) }
    }

    @Test func keyIdentifiersCannotEscapeTheDirectory() {
        let store = FileKeyStore(directory: directory)
        for id in ["../x", "a/b", "", String(repeating: "a", count: 65), "a.b"] {
            #expect(throws: KeyStoreError.invalidKeyID) { try store.deviceKey(id: id) }
        }
    }

    @Test func aCorruptKeyFileIsReportedWithoutItsContent() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("-----BEGIN PRIVATE KEY-----\nsecret\n".utf8).write(to: directory.appendingPathComponent("k1.key.pem"))
        let store = FileKeyStore(directory: directory)
        #expect(throws: KeyStoreError.unreadableKey("k1")) { try store.deviceKey(id: "k1") }
    }

    @Test func credentialsRoundTripWithTheirBytes() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixtures = try ProximityFixtures()
        let keys = FileKeyStore(directory: directory.appendingPathComponent("keys"), random: fixtures.random)
        let keyID = try keys.createDeviceKey()
        let store = DirectoryCredentialStore(directory: directory.appendingPathComponent("credentials"))
        let bytes = try fixtures.credential.issuerSigned.encoded()
        let record = CredentialRecord(
            format: CredentialRecord.mdocFormat, id: DirectoryCredentialStore.newID(random: fixtures.random), type: MDL.docType,
            keyID: keyID, data: bytes, addedAt: ProximityFixtures.now)
        try store.save(record)
        let loaded = try store.records()
        #expect(loaded == [record])
        let credential = try store.mdoc(loaded[0], keys: keys)
        #expect(try credential.issuerSigned.encoded() == bytes)
        try store.delete(id: record.id)
        #expect(try store.records().isEmpty)
    }

    @Test func aDamagedCredentialFileIsATypedError() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: directory.appendingPathComponent("x.json"))
        #expect(throws: CredentialStoreError.unreadable("x.json")) { try DirectoryCredentialStore(directory: directory).records() }
    }

    @Test func loopbackGateReportsAndPowersOnTheRadio() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let gate = LoopbackRadioGate(directory: directory)
        #expect(await gate.missing([.bluetoothPoweredOn, .bluetoothPermission, .cameraPermission]) == [.bluetoothPoweredOn])
        await gate.resolve(.bluetoothPoweredOn)
        #expect(await gate.missing([.bluetoothPoweredOn, .bluetoothPermission, .cameraPermission]).isEmpty)
    }

    /// §8.3.3.1.1.4, computed independently: HKDF-Extract with a zero salt, then one Expand block (RFC 5869 §2).
    @Test func bleIdentIsHKDFOfTheTaggedEDeviceKeyBytes() throws {
        let key = try EphemeralPrivateKey.generate(random: SeededRandomSource(seed: 3))
        let security = try DeviceEngagement.Security(eDeviceKey: key.publicCOSEKey)
        var tagged = Data([0xd8, 0x18])
        let inner = security.eDeviceKeyBytes.bytes
        tagged += inner.count < 24 ? Data([0x40 | UInt8(inner.count)]) : Data([0x58, UInt8(inner.count)])
        tagged += inner
        let prk = Data(HMAC<SHA256>.authenticationCode(for: tagged, using: SymmetricKey(data: Data(count: 32))))
        let okm = Data(HMAC<SHA256>.authenticationCode(for: Data("BLEIdent".utf8) + [1], using: SymmetricKey(data: prk)))
        #expect(security.bleIdent == okm.prefix(16))
    }
}
