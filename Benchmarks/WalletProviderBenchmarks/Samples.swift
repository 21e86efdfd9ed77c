// The real device samples the registration benchmarks replay, and the signature checks of their floor.

import Argon2
import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import Crypto
import DeviceAttestation
import DeviceAttestationTesting
import Foundation
import Synchronization
import TesseraCBOR
import TesseraCore
import TesseraJOSE
import TesseraTrust
import TesseraTrustTesting
import Vapor
@_spi(Benchmarks) import WalletProvider
import X509
import _CryptoExtras

// MARK: - Samples

/// The repository root: this file is Benchmarks/WalletProviderBenchmarks/Samples.swift.
private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

private func sample(_ file: String, id: String) throws -> JSONValue {
    let url = repositoryRoot.appendingPathComponent("Benchmarks/Fixtures/\(file)")
    let all = try JSONValue.parse(try Data(contentsOf: url))
    guard let found = all.arrayValue?.first(where: { $0["id"]?.stringValue == id }) else {
        throw BenchmarkFailure("\(file) has no sample \(id)")
    }
    return found
}

private func instant(_ text: String?) throws -> Date {
    guard let text, let date = ISO8601DateFormatter().date(from: text) else { throw BenchmarkFailure("bad time \(text ?? "nil")") }
    return date
}

/// What a registration of one real device sample needs: the challenge inside it, the request fields, the app to
/// configure, and the instant at which its certificates are valid.
struct DeviceSample: Sendable {
    enum Platform: Sendable { case apple, android }
    let platform: Platform
    let challenge: String
    let keyAttestation: String
    /// Apple: the keyId (base64), which the provider requires as hardware_key_tag; Android: nil (any fresh tag).
    let fixedHardwareKeyTag: String?
    let validationTime: Date
    let appleApp: AppAttestAppID?
    let androidApp: AndroidApplication?
    /// DER certificates, leaf first (Apple: x5c, without the root).
    let chain: [Data]

    /// The verifier alone, as the provider calls it: the policy made once (as the provider's configuration holds
    /// it), then per call the verifier, the challenge derivation and the check at the sample's instant.
    func attestationVerifier() -> @Sendable () -> Bool {
        let (challenge, instant, chain) = (challenge, validationTime, chain)
        switch platform {
        case .apple:
            guard let app = appleApp, let object = Data(base64Encoded: keyAttestation),
                let tag = fixedHardwareKeyTag, let keyID = Data(base64Encoded: tag)
            else { return { false } }
            let policy = AppAttestPolicy(apps: [app], allowedEnvironments: [.production, .development])
            return {
                let outcome = AppAttestVerifier(policy: policy).verifyAttestation(
                    object, clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))), keyID: keyID, at: instant)
                return outcome.facts != nil && outcome.failures.isEmpty
            }
        case .android:
            guard let app = androidApp else { return { false } }
            let policy = AndroidAttestationPolicy(applications: [app])
            return {
                let outcome = AndroidKeyAttestationVerifier(policy: policy).verify(chain: chain, challenge: Data(challenge.utf8), at: instant)
                return outcome.facts != nil && outcome.failures.isEmpty
            }
        }
    }

    static func apple() throws -> DeviceSample {
        let json = try sample("apple-app-attest.json", id: "ios-pagopa-io-wallet-dev-2024")
        guard let objectB64 = json["attestation"]?["attestation_object_b64"]?.stringValue,
            let object = Data(base64Encoded: objectB64),
            let keyID = json["attestation"]?["key_id_b64"]?.stringValue,
            let challenge = json["attestation"]?["client_data"]?["utf8"]?.stringValue,
            let team = json["expected"]?["team_id"]?.stringValue, let bundle = json["expected"]?["bundle_id"]?.stringValue
        else { throw BenchmarkFailure("the Apple sample lacks a field") }
        guard case .map(let map) = try CBOR.decode(object), let x5c = map["attStmt"]?.mapValue?["x5c"]?.arrayValue else {
            throw BenchmarkFailure("the attestation object has no x5c")
        }
        return DeviceSample(
            platform: .apple, challenge: challenge, keyAttestation: objectB64, fixedHardwareKeyTag: keyID,
            validationTime: try instant(json["validation_time"]?.stringValue),
            appleApp: AppAttestAppID(teamID: team, bundleID: bundle), androidApp: nil, chain: x5c.compactMap(\.bytesValue))
    }

    static func android() throws -> DeviceSample {
        let json = try sample("android-key-attestation.json", id: "android-pagopa-io-wallet-strongbox-2024")
        guard let chainB64 = json["certificate_chain_b64"]?.arrayValue?.compactMap(\.stringValue),
            let challenge = json["expected"]?["challenge"]?["utf8"]?.stringValue,
            let package = json["expected"]?["attestation_application_id"]?["packages"]?[0]?["name"]?.stringValue,
            let digests = json["expected"]?["attestation_application_id"]?["signature_digests_sha256_b64"]?.arrayValue
        else { throw BenchmarkFailure("the Android sample lacks a field") }
        // The IT-Wallet apps' encoding: base64 of "base64(DER),base64(DER),…", leaf first.
        let keyAttestation = Data(chainB64.joined(separator: ",").utf8).base64EncodedString()
        return DeviceSample(
            platform: .android, challenge: challenge, keyAttestation: keyAttestation, fixedHardwareKeyTag: nil,
            validationTime: try instant(json["validation_time"]?.stringValue), appleApp: nil,
            androidApp: AndroidApplication(
                packageName: package, signingCertificateDigests: Set(digests.compactMap { $0.stringValue.flatMap { Data(base64Encoded: $0) } })),
            chain: chainB64.compactMap { Data(base64Encoded: $0) })
    }
}

extension JSONValue {
    fileprivate subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}

// MARK: - Floor

/// One certificate signature, ready to check: the TBS bytes as received, the signature bytes, the issuer's key.
struct SignatureCheck: Sendable {
    enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }
    let tbs: ArraySlice<UInt8>
    let signature: [UInt8]
    let algorithm: Certificate.SignatureAlgorithm
    let key: Key

    init(_ certificate: Certificate, issuer: Certificate) throws {
        tbs = certificate.tbsCertificateBytes
        signature = certificate.signature.rawRepresentation
        algorithm = certificate.signatureAlgorithm
        if let key = P256.Signing.PublicKey(issuer.publicKey) {
            self.key = .p256(key)
        } else if let key = P384.Signing.PublicKey(issuer.publicKey) {
            self.key = .p384(key)
        } else if let key = _RSA.Signing.PublicKey(issuer.publicKey) {
            self.key = .rsa(key)
        } else {
            throw BenchmarkFailure("unexpected issuer key type")
        }
    }

    /// Hash the TBS bytes with the algorithm's digest, then verify (ECDSA signatures are DER-decoded here too).
    func verify() -> Bool {
        switch (key, algorithm) {
        case (.p256(let key), .ecdsaWithSHA256):
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA256.hash(data: tbs))
        case (.p384(let key), .ecdsaWithSHA256):
            guard let signature = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA256.hash(data: tbs))
        case (.p384(let key), .ecdsaWithSHA384):
            guard let signature = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA384.hash(data: tbs))
        case (.rsa(let key), .sha256WithRSAEncryption):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: tbs), padding: .insecurePKCS1v1_5)
        default:
            return false
        }
    }

    /// Every signature the verifier checks for `sample`: Apple, each x5c link and the top one by the App Attest
    /// root; Android, each link and the root's self-signature.
    static func all(for sample: DeviceSample) throws -> [SignatureCheck] {
        var certificates = try sample.chain.map { try Certificate(derEncoded: Array($0)) }
        switch sample.platform {
        case .apple:
            guard let root = AttestationRoots.appleAppAttestation.first else { throw BenchmarkFailure("no Apple root") }
            certificates.append(root)
        case .android:
            guard let root = certificates.last else { throw BenchmarkFailure("empty chain") }
            certificates.append(root)  // the self-signature
        }
        let checks = try zip(certificates, certificates.dropFirst()).map { try SignatureCheck($0, issuer: $1) }
        guard checks.allSatisfy({ $0.verify() }) else { throw BenchmarkFailure("a floor signature does not verify") }
        return checks
    }

    var label: String {
        switch key {
        case .p256: "P-256"
        case .p384: "P-384"
        case .rsa(let key): "RSA-\(key.keySizeInBits)"
        }
    }
}
