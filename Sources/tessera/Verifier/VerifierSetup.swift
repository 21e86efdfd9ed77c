import Foundation
import SDJWT
import VerifierService

/// The verifier service's configuration from the CLI's options and $TESSERA_HOME.
enum VerifierSetup {
    static func configuration(
        trust: String?, database: String?, baseURL: String?, webRoot: String?, lifetime: Double, announce: Bool,
        home: URL = TesseraHome.url, statusLists: (any StatusListFetcher)? = nil
    ) async throws -> VerifierServiceConfiguration {
        let verifierDirectory = home.appendingPathComponent("verifier")
        let pki = try TestPKIDirectory(url: verifierDirectory, leafName: "verifier").loadOrCreate(
            rootCommonName: "Tessera Test Verifier Root", leafCommonName: "Tessera Test Verifier")
        if pki.created, announce { print("created the verifier's client identity in \(verifierDirectory.path)") }
        let identity = try VerifierIdentity(signingKey: pki.key, certificateChain: pki.chain)
        let trustFiles: [String]
        if let trust {
            trustFiles = try pemFiles(trust)
        } else {
            // The demo issuers (created now if `wallet add-*` has not run yet, so that it reuses them).
            _ = try IssuerDirectory(url: home.appendingPathComponent("issuer")).documentSigner()
            _ = try WalletAddPID.issuer(in: home.appendingPathComponent("pid-issuer"))
            trustFiles = [
                home.appendingPathComponent("issuer/iaca.pem").path, home.appendingPathComponent("pid-issuer/root.pem").path,
            ]
            if announce { print("no --trust given: trusting the demo issuers \(trustFiles.joined(separator: ", "))") }
        }
        let databaseURL = databaseURL(database, in: verifierDirectory)
        do {
            return VerifierServiceConfiguration(
                identity: identity, trust: try IssuerTrust.pemFiles(trustFiles, statusListFetcher: statusLists),
                database: try .init(url: databaseURL), publicBaseURL: baseURL, transactionLifetime: lifetime,
                webRoot: webRoot.map { URL(fileURLWithPath: $0) })
        } catch {
            throw UserFacingError("\(error)")
        }
    }

    /// `--database`, else $DATABASE_URL, else the SQLite file in the verifier's directory.
    static func databaseURL(_ database: String?, in verifierDirectory: URL) -> String {
        database ?? ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "sqlite://" + verifierDirectory.appendingPathComponent("transactions.sqlite").path
    }

    /// A PEM file, or every `.pem` file in a directory.
    static func pemFiles(_ path: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw UserFacingError("\(path) does not exist") }
        guard isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        let files = names.filter { $0.hasSuffix(".pem") && !$0.hasSuffix(".key.pem") }.sorted().map { path + "/" + $0 }
        guard !files.isEmpty else { throw UserFacingError("\(path) holds no .pem certificates") }
        return files
    }
}
