import Foundation
import TesseraTestSupport
import X509

/// A provider for the Python peer (`scripts/peers/itwallet_client.py`): the peer's own test root made, then either
/// the provider library on loopback trusting it (`inProcess`) or `tessera provider serve` trusting it with
/// `--trust-test-attestation-root`, as an operator would run it; and the signing root a relying party configures.
struct PeerProvider {
    let python: String
    let directory: URL
    /// The peer's root (PEM file): its devices' attestations and its PDND calls chain to it.
    let peerRootPath: String
    /// Where requests go: the in-process provider, or the process on the same kind of database.
    let fixture: ProviderFixture
    /// The provider's signing chain's root (PEM file): the one trust input for what it issues.
    let signingRootPath: String
    private let local: ProviderFixture
    private let process: ServiceProcess?

    /// `processArguments(peerRootPath)`: extra `provider serve` options beyond trusting the peer's root.
    static func start(
        python: String, inProcess: Bool, processArguments: (String) -> [String] = { _ in [] }
    ) async throws -> PeerProvider {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("itwallet-peer-\(UUID().uuidString)")
        let rootPath = try await ProductionClientInteropTests.peerAsync(python, ["make-root", "--dir", directory.path])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let root = try Certificate(pemEncoded: String(contentsOfFile: rootPath, encoding: .utf8))
        let local = try await ProviderFixture(peerRoot: root)
        let home = directory.appendingPathComponent("home")
        guard !inProcess else {
            let signingRoot = directory.appendingPathComponent("signing-root.pem").path
            try local.signingRoot.serializeAsPEM().pemString.write(toFile: signingRoot, atomically: true, encoding: .utf8)
            return PeerProvider(
                python: python, directory: directory, peerRootPath: rootPath, fixture: local, signingRootPath: signingRoot,
                local: local, process: nil)
        }
        let digest = ProviderFixture.application.signingCertificateDigests.first ?? Data()
        let process = try await ProviderProcess.start([
            "--trust-test-attestation-root", rootPath, "--apple-app", ProviderFixture.appleApp.rpID,
            "--android-app", "\(ProviderFixture.application.packageName):\(ProductionClientInteropTests.hex(digest))",
            "--password-cost", "m=64,t=1,p=1",
        ] + processArguments(rootPath), home: home)
        // The process keeps its test signing chain in its provider directory.
        return PeerProvider(
            python: python, directory: directory, peerRootPath: rootPath, fixture: local.at(process.baseURL),
            signingRootPath: home.appendingPathComponent("provider/signing/root.pem").path, local: local, process: process)
    }

    /// The peer's options naming this provider, an account session and the test apps.
    func peerArguments(_ command: String, session: String) -> [String] {
        [
            command, "--dir", directory.path, "--provider", fixture.baseURL, "--session=\(session)",
            "--apple-app", ProviderFixture.appleApp.rpID, "--android-package", ProviderFixture.application.packageName,
            "--android-signer", "test signer", "--signing-root", signingRootPath,
        ]
    }

    func stop() async {
        process?.stop()
        await local.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
