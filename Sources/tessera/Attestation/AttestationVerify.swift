import ArgumentParser
import Crypto
import DeviceAttestation
import Foundation
import SwiftASN1
import TesseraCore
import TesseraJOSE
import X509

/// `tessera attestation verify`: runs the Wallet Provider's verifiers (`AppAttestVerifier`,
/// `AndroidKeyAttestationVerifier`, `KeyAttestationEvidence`) on a saved attestation, so an operator can see why a
/// real device was refused. Exit status 0 iff the attestation is valid.
struct AttestationVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify an App Attest attestation object or an Android key attestation chain.",
        discussion: """
            --attestation FILE: iOS, the attestation object raw (CBOR) or base64; Android, the certificate chain as \
            PEM (leaf first) or the wire's base64 list (as in key_attestation, Base64.DEFAULT lines included). \
            The challenge: --client-data-hash HEX is the value the device bound (iOS clientDataHash, Android \
            attestationChallenge); --challenge TEXT is the server's challenge, turned into that value as the Wallet \
            Provider does (iOS: SHA-256 of its UTF-8; Android: its UTF-8 bytes). --at pins the instant (ISO 8601); \
            --root replaces Apple's / Google's roots.
            """)

    enum Platform: String, ExpressibleByArgument { case ios, android }

    @Option(help: "ios or android.") var platform: Platform
    @Option(help: "The attestation file (see above).") var attestation: String
    @Option(name: .customLong("key-id"), help: "iOS: the keyId as the app sent it (base64 or base64url).") var keyID: String?
    @Option(name: .customLong("client-data-hash"), help: "The bound value, hex.") var clientDataHash: String?
    @Option(help: "The server's challenge, as text.") var challenge: String?
    @Option(help: "iOS: an allowed app TEAMID.BUNDLEID (repeatable).") var app: [String] = []
    @Option(name: .customLong("android-app"), help: "Android: an allowed app PACKAGE:SHA256HEX of a signing certificate (repeatable; one package may be given several digests; a bare PACKAGE: attested without digests).")
    var androidApps: [String] = []
    @Flag(help: "iOS: accept the development environment as well as production.") var development = false
    @Option(help: "A trusted root certificate (PEM) instead of Apple's or Google's (repeatable).") var root: [String] = []
    @Option(help: "The instant of validation (ISO 8601; default: now).") var at: String?
    @Option(name: .customLong("revocation-list"), help: "Android: a revocation status JSON ({\"entries\": {serial: …}}) instead of none.")
    var revocationList: String?
    @Flag(help: "Android: decode the KeyDescription as android/keyattestation does (BER booleans, any tag order).") var lenient = false
    @Flag(help: "Print one JSON object: {valid, failures: [{code, message}], facts}.") var json = false

    func run() async throws {
        let instant = try at.map { try MDocFiles.instant($0, option: "--at") } ?? Date()
        let report: AttestationReport
        switch platform {
        case .ios: report = try verifyAppAttest(at: instant)
        case .android: report = try verifyAndroid(at: instant)
        }
        report.print(json: json)
        if !report.valid { throw ExitCode(1) }
    }

    private func boundValue(ios: Bool) throws -> Data {
        switch (clientDataHash, challenge) {
        case (let hex?, nil):
            guard let bytes = Data(hexString: hex) else { throw UserFacingError("--client-data-hash: not hex") }
            return bytes
        case (nil, let text?):
            return ios ? Data(SHA256.hash(data: Data(text.utf8))) : Data(text.utf8)
        default:
            throw UserFacingError("give exactly one of --client-data-hash and --challenge")
        }
    }

    private func verifyAppAttest(at instant: Date) throws -> AttestationReport {
        guard !app.isEmpty else { throw UserFacingError("--app TEAMID.BUNDLEID is required for iOS") }
        guard let keyID, let keyBytes = Base64Any.decode(keyID), !keyBytes.isEmpty else {
            throw UserFacingError("--key-id: the keyId, base64 or base64url")
        }
        let raw = try Self.read(attestation)
        let object: Data
        if let first = raw.first, (0xA0...0xBF).contains(first) {
            object = raw
        } else if let decoded = Base64Any.decode(String(decoding: raw, as: UTF8.self)) {
            object = decoded
        } else {
            throw UserFacingError("\(attestation): neither a CBOR attestation object nor base64 of one")
        }
        var policy = AppAttestPolicy(
            apps: try app.map(ProviderSetup.parseAppleApp), allowedEnvironments: development ? [.production, .development] : [.production])
        if !root.isEmpty { policy.trustedRoots = try root.flatMap(Self.certificates) }
        let outcome = AppAttestVerifier(policy: policy)
            .verifyAttestation(object, clientDataHash: try boundValue(ios: true), keyID: keyBytes, at: instant)
        return AttestationReport(outcome, facts: outcome.facts.map(AttestationReport.facts))
    }

    private func verifyAndroid(at instant: Date) throws -> AttestationReport {
        guard !androidApps.isEmpty else { throw UserFacingError("--android-app PACKAGE:SHA256HEX is required for Android") }
        let raw = try Self.read(attestation)
        let text = String(decoding: raw, as: UTF8.self)
        var encoding = "pem"
        let chain: [Data]
        if text.contains("-----BEGIN CERTIFICATE-----") {
            chain = try Self.pemCertificates(text, path: attestation)
        } else if let evidence = KeyAttestationEvidence(wire: text), case .androidChain(let certificates) = evidence.kind {
            chain = certificates
            encoding = evidence.encoding.rawValue
        } else {
            throw UserFacingError("\(attestation): neither a PEM chain nor the wire's base64 certificate list")
        }
        var policy = AndroidAttestationPolicy(applications: try Self.androidApplications(androidApps), encoding: lenient ? .lenient : .strict)
        if !root.isEmpty {
            policy.trustedRootKeys = try root.flatMap(Self.certificates).map { Data($0.publicKey.subjectPublicKeyInfoBytes) }
        }
        if let revocationList {
            do {
                policy.revocationList = try AndroidRevocationList(statusJSON: try Self.read(revocationList))
            } catch let error as DeviceAttestationError {
                throw UserFacingError("--revocation-list: \(error)")
            }
        }
        let outcome = AndroidKeyAttestationVerifier(policy: policy).verify(chain: chain, challenge: try boundValue(ios: false), at: instant)
        var facts = outcome.facts.map(AttestationReport.facts) ?? [:]
        facts["encoding"] = .string(encoding)
        facts["certificates"] = .integer(Int64(chain.count))
        return AttestationReport(outcome, facts: facts)
    }

    /// `PACKAGE:SHA256HEX` options, the digests of one package gathered into one application.
    static func androidApplications(_ options: [String]) throws -> [AndroidApplication] {
        var digests: [String: Set<Data>] = [:]
        var order: [String] = []
        for option in options {
            // A bare PACKAGE stands for an app attested without signing digests (the system's `AndroidSystem`).
            let single = option.contains(":")
                ? try ProviderSetup.parseAndroidApp(option) : AndroidApplication(packageName: option, signingCertificateDigests: [])
            if digests[single.packageName] == nil { order.append(single.packageName) }
            digests[single.packageName, default: []].formUnion(single.signingCertificateDigests)
        }
        return order.map { AndroidApplication(packageName: $0, signingCertificateDigests: digests[$0] ?? []) }
    }

    static func read(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else { throw UserFacingError("\(path): cannot be read") }
        return data
    }

    static func pemCertificates(_ text: String, path: String) throws -> [Data] {
        do {
            return try PEMDocument.parseMultiple(pemString: text).map { Data($0.derBytes) }
        } catch {
            throw UserFacingError("\(path): not PEM certificates (\(error))")
        }
    }

    static func certificates(_ path: String) throws -> [Certificate] {
        let text = String(decoding: try read(path), as: UTF8.self)
        return try pemCertificates(text, path: path).map { der in
            do {
                return try Certificate(derEncoded: Array(der))
            } catch {
                throw UserFacingError("\(path): not a certificate")
            }
        }
    }
}
