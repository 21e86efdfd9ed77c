// Wallet Instance Attestation (IT-Wallet 1.5): the device side that builds `wia-request+jwt`, and the signature
// floor of one issuance.

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

// MARK: - Wallet Instance Attestation (1.5)

/// The WIA provider's clock: set by setup only, 10 ms further per iteration, so each WIA moves its status entry's
/// maintained_until as under a real clock, and nothing expires within a run (requests, tokens, nonces).
final class SteppedClock: TesseraClock {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    func now() -> Date { instant.withLock { $0 } }
    func step() { instant.withLock { $0 = $0.addingTimeInterval(0.01) } }
}

/// The device side of a Wallet Instance: a hardware key attested by the test attestation authorities, that builds
/// 1.5 `wia-request+jwt` as the tests' AttestationDevice (and the 1.5 text) does: `iss` = the cnf key's thumbprint,
/// `client_data` = `{"nonce", "jwk_thumbprint"}`, iOS with its App Attest assertion split into `hardware_signature`
/// (the DER signature) and `integrity_assertion` (the authenticator data), Android with a DER ECDSA signature over
/// `client_data` and an integrity token whose `requestHash` is its SHA-256. Whatever provider it registers with, in
/// this process or in another.
final class WIAKey: Sendable {
    enum Platform: String, Sendable { case ios, android }
    static let application = AndroidApplication(
        packageName: "org.tessera.wallet.bench", signingCertificateDigests: [Data(SHA256.hash(data: Data("bench signer".utf8)))])
    static let appleApp = AppAttestAppID(teamID: "TESSERA001", bundleID: "org.tessera.wallet.bench")

    let platform: Platform
    let authority: AndroidTestAttestationAuthority
    /// When the key was attested (and the integrity signer's certificate issued, valid an hour around it).
    let now: Date
    /// The device's clock: its requests' `iat` and its integrity tokens' timestamp.
    let clock: any TesseraClock
    /// The hardware key (App Attest key / Android Keystore key).
    let key: P256.Signing.PrivateKey
    let hardwareKeyTag: String
    /// Android: the integrity token signer (valid an hour around `now`).
    let integritySigner: (key: P256.Signing.PrivateKey, chain: [Data])
    private let counter = Mutex<UInt32>(0)

    private init(
        platform: Platform, authority: AndroidTestAttestationAuthority, now: Date, clock: any TesseraClock, key: P256.Signing.PrivateKey,
        hardwareKeyTag: String
    ) throws {
        (self.platform, self.authority, self.now, self.clock) = (platform, authority, now, clock)
        (self.key, self.hardwareKeyTag) = (key, hardwareKeyTag)
        integritySigner = try authority.integritySigner(at: now)
    }

    /// A fresh hardware key and the body of its registration (`POST /wallet-instance`) for `challenge`, a nonce the
    /// provider issued: the key attested by the test authority (App Attest or Android key attestation).
    static func attested(
        _ platform: Platform, authority: AndroidTestAttestationAuthority, now: Date, clock: any TesseraClock, challenge: String
    ) throws -> (key: WIAKey, registration: JSONObject) {
        let key = P256.Signing.PrivateKey()
        let attestation: String, tag: String
        switch platform {
        case .ios:
            let attested = try AppAttestTestAuthority(sharing: authority).attest(
                publicKey: key.publicKey, app: appleApp, environment: .production,
                clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))), at: now)
            attestation = attested.attestationObject.base64EncodedString()
            tag = Base64URL.encode(attested.keyID)
        case .android:
            let chain = try authority.attest(publicKey: key.publicKey, challenge: Data(challenge.utf8), application: application, at: now)
            attestation = Data(chain.map { $0.base64EncodedString() }.joined(separator: ",").utf8).base64EncodedString()
            tag = "bench-android-\(UUID().uuidString)"
        }
        let body: JSONObject = [
            "challenge": .string(challenge), "key_attestation": .string(attestation), "hardware_key_tag": .string(tag),
        ]
        return (try WIAKey(platform: platform, authority: authority, now: now, clock: clock, key: key, hardwareKeyTag: tag), body)
    }

    /// A `wia-request+jwt` for `nonce`, and what the floor needs of it: the cnf key, the bytes the hardware key
    /// signed and that signature.
    func request(nonce: String) throws -> (jwt: String, cnf: P256.Signing.PublicKey, signedMessage: Data, hardwareSignature: P256.Signing.ECDSASignature) {
        let cnf = P256.Signing.PrivateKey()
        let jwk = JWK(publicKey: cnf.publicKey)
        let thumbprint = jwk.thumbprintBase64URL()
        let clientData = (["nonce": .string(nonce), "jwk_thumbprint": .string(thumbprint)] as JSONObject).serialized()
        let signature: Data, integrity: String, signedMessage: Data
        switch platform {
        case .ios:
            let next = counter.withLock { value in
                value += 1
                return value
            }
            let parts = try AppAttestAssertionObject(
                try AppAttestTestAuthority.assertion(key: key, app: Self.appleApp, clientData: clientData, counter: next))
            signature = parts.signature
            integrity = parts.authenticatorData.base64EncodedString()
            signedMessage = AppAttestTestAuthority.assertionNonce(authenticatorData: parts.authenticatorData, clientData: clientData)
        case .android:
            signature = try key.signature(for: clientData).derRepresentation
            integrity = try integrityToken(over: clientData)
            signedMessage = clientData
        }
        let iat = Int64(clock.now().timeIntervalSince1970)
        let claims: JSONObject = [
            "iss": .string(thumbprint), "nonce": .string(nonce), "hardware_key_tag": .string(hardwareKeyTag),
            "cnf": ["jwk": .object(jwk.with(kid: thumbprint).jsonObject)],
            "platform": .string(platform == .ios ? "iOS" : "android"),
            "wallet_solution_id": "tessera", "wallet_solution_version": "1.5.0",
            "iat": .integer(iat), "exp": .integer(iat + 3600),
            "hardware_signature": .string(signature.base64EncodedString()), "integrity_assertion": .string(integrity),
        ]
        let header: JSONObject = ["typ": "wia-request+jwt", "kid": .string(thumbprint)]
        let jwt = try CompactJWS.sign(header: header, claims: claims, key: .es256(cnf)).compact
        return (jwt, cnf.publicKey, signedMessage, try P256.Signing.ECDSASignature(derRepresentation: signature))
    }

    /// A Play-Integrity-shaped token under the test authority, `requestHash` = hex SHA-256 of `data`.
    private func integrityToken(over data: Data) throws -> String {
        let hash = Data(SHA256.hash(data: data)).map { String(format: "%02x", $0) }.joined()
        let package = Self.application.packageName
        let payload: JSONObject = [
            "requestDetails": [
                "requestPackageName": .string(package), "requestHash": .string(hash),
                "timestampMillis": .string(String(Int64(clock.now().timeIntervalSince1970 * 1000))),
            ],
            "appIntegrity": ["appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": .string(package)],
            "deviceIntegrity": ["deviceRecognitionVerdict": ["MEETS_DEVICE_INTEGRITY"]],
        ]
        let header: JSONObject = ["x5c": .array(integritySigner.chain.map { .string($0.base64EncodedString()) })]
        return try CompactJWS.sign(header: header, claims: payload, key: .es256(integritySigner.key)).compact
    }

    /// `POST /wallet-instance-attestation` at `baseURL` with the request as `application/jwt`; the WIA answered.
    static func post(_ jwt: String, to baseURL: String, client: HTTPClient) async throws -> String {
        var request = HTTPClientRequest(url: baseURL + "/wallet-instance-attestation")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/jwt")
        request.body = .bytes(ByteBuffer(string: jwt))
        let response = try await client.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == .ok, let wia = (try? JSONValue.parse(answer.readableBytesView))?["wallet_instance_attestation"]?.stringValue else {
            throw BenchmarkFailure("POST /wallet-instance-attestation answered \(response.status): \(String(buffer: answer))")
        }
        return wia
    }

    /// A 1.5 WIA: `oauth-client-attestation+jwt` with `x5c`, a `client_status` entry and no `iss`.
    static func check(_ wia: String) throws {
        let jws = try CompactJWS(parsing: wia)
        let claims = try jws.payloadJSON()
        guard jws.type == "oauth-client-attestation+jwt", jws.header["x5c"]?.arrayValue?.isEmpty == false,
            claims["client_status"]?["status"]?["status_list"]?["idx"] != nil, claims["iss"] == nil
        else { throw BenchmarkFailure("not a 1.5 WIA: \(jws.header) \(claims)") }
    }
}

/// A device registered at a provider in this process, whose clock it moves: what the WIA benchmarks drive.
final class WIADevice: Sendable {
    typealias Platform = WIAKey.Platform
    static let application = WIAKey.application
    static let appleApp = WIAKey.appleApp

    let device: WIAKey
    let provider: Provider
    let clock: SteppedClock

    var platform: Platform { device.platform }
    var authority: AndroidTestAttestationAuthority { device.authority }
    var key: P256.Signing.PrivateKey { device.key }
    var integritySigner: (key: P256.Signing.PrivateKey, chain: [Data]) { device.integritySigner }

    private init(device: WIAKey, provider: Provider, clock: SteppedClock) {
        (self.device, self.provider, self.clock) = (device, provider, clock)
    }

    /// Registers a fresh hardware key through the provider's registration path (challenge seeded as an issued
    /// nonce, key attestation by the test authority).
    static func register(
        _ platform: Platform, at provider: Provider, authority: AndroidTestAttestationAuthority, now: Date, clock: SteppedClock
    ) async throws -> WIADevice {
        let challenge = Base64URL.encode(SystemRandomSource().bytes(32))
        try await provider.server.benchmarkSeedChallenge(challenge)
        let (device, body) = try WIAKey.attested(platform, authority: authority, now: now, clock: clock, challenge: challenge)
        try await provider.server.benchmarkRegister(body: body.serialized(), accountID: provider.accountID)
        return WIADevice(device: device, provider: provider, clock: clock)
    }

    /// Setup of one iteration: the clock 10 ms on, a nonce stored as `GET /nonce` stores it, and a request for it
    /// bound to a fresh cnf key (its `iat` the clock's instant).
    func prepare() async throws -> String {
        clock.step()
        let nonce = Base64URL.encode(SystemRandomSource().bytes(32))
        try await provider.server.benchmarkSeedChallenge(nonce)
        return try request(nonce: nonce).jwt
    }

    func request(nonce: String) throws -> (jwt: String, cnf: P256.Signing.PublicKey, signedMessage: Data, hardwareSignature: P256.Signing.ECDSASignature) {
        try device.request(nonce: nonce)
    }

    /// `POST /wallet-instance-attestation` with the request as `application/jwt`; the WIA answered.
    func post(_ jwt: String, client: HTTPClient) async throws -> String {
        try await WIAKey.post(jwt, to: provider.server.baseURL, client: client)
    }
}

/// The signature operations one WIA issuance needs, on keys parsed in advance: the request JWS verified (ES256 by
/// the cnf key over its signing input), the hardware proof verified (ECDSA P-256 by the registered key over the
/// bytes it signed), the WIA signed (ES256 by the provider's key over a signing input of the WIA's size).
/// `integrity`: Android's test integrity token as `LocalIntegrityTokenVerifier` checks it besides (its x5c leaf
/// by the intermediate, the intermediate by the root, the token by the leaf).
struct WIAFloor: Sendable {
    let requestInput: Data
    let requestSignature: P256.Signing.ECDSASignature
    let cnf: P256.Signing.PublicKey
    let hardwareMessage: Data
    let hardwareSignature: P256.Signing.ECDSASignature
    let hardwareKey: P256.Signing.PublicKey
    let wiaInput: Data
    let providerKey: P256.Signing.PrivateKey
    let integrity: [SignatureCheck]
    let integrityToken: (input: Data, signature: P256.Signing.ECDSASignature, key: P256.Signing.PublicKey)?

    init(device: WIADevice, integrity withIntegrity: Bool) async throws {
        let built = try device.request(nonce: Base64URL.encode(SystemRandomSource().bytes(32)))
        let jws = try CompactJWS(parsing: built.jwt)
        requestInput = Data(jws.signingInput.utf8)
        requestSignature = try P256.Signing.ECDSASignature(rawRepresentation: jws.signature)
        cnf = built.cnf
        hardwareMessage = built.signedMessage
        hardwareSignature = built.hardwareSignature
        hardwareKey = device.key.publicKey
        // A WIA's signing input, as the service issued it in setup.
        let issued = try await device.provider.server.benchmarkWalletInstanceAttestation(assertion: try await device.prepare())
        wiaInput = Data(try CompactJWS(parsing: issued).signingInput.utf8)
        providerKey = device.provider.signingKey
        if withIntegrity, let token = (try CompactJWS(parsing: built.jwt).payloadJSON())["integrity_assertion"]?.stringValue {
            let tokenJWS = try CompactJWS(parsing: token)
            var chain = try device.integritySigner.chain.map { try Certificate(derEncoded: Array($0)) }
            chain.append(device.authority.rootCertificate)
            integrity = try zip(chain, chain.dropFirst()).map { try SignatureCheck($0, issuer: $1) }
            integrityToken = (Data(tokenJWS.signingInput.utf8), try P256.Signing.ECDSASignature(rawRepresentation: tokenJWS.signature),
                device.integritySigner.key.publicKey)
        } else {
            (integrity, integrityToken) = ([], nil)
        }
        guard run() else { throw BenchmarkFailure("a WIA floor signature does not verify") }
    }

    /// One issuance's signatures; false when a verification fails.
    func run() -> Bool {
        guard cnf.isValidSignature(requestSignature, for: requestInput),
            hardwareKey.isValidSignature(hardwareSignature, for: hardwareMessage),
            integrity.allSatisfy({ $0.verify() })
        else { return false }
        if let token = integrityToken, !token.key.isValidSignature(token.signature, for: token.input) { return false }
        return (try? providerKey.signature(for: wiaInput)) != nil
    }
}
