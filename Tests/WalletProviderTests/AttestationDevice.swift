import Crypto
import DeviceAttestation
import DeviceAttestationTesting
import Foundation
import ITWalletProtocol
import Synchronization
import TesseraCore
import TesseraJOSE
import Testing

/// A registered device that builds 1.3 and 1.5 attestation requests itself, byte for byte, so each test can change
/// exactly one part: the production client's way for 1.3 (io-react-native-wallet "1.3.3": `iss` = the hardware key
/// tag, no `aud`, `client_data` with `challenge`, the App Attest assertion split in two), the 1.5 text's for 1.5
/// (`client_data` with `nonce`, no top-level `integrity_assertion` in a Key Attestation Request).
final class AttestationDevice: Sendable {
    enum Platform: String, Sendable, CaseIterable { case ios, android }

    let fixture: ProviderFixture
    let platform: Platform
    /// The registered hardware key (App Attest key / Android Keystore key).
    let key: P256.Signing.PrivateKey
    let hardwareKeyTag: String
    private let counter = Mutex<UInt32>(0)

    private init(fixture: ProviderFixture, platform: Platform, key: P256.Signing.PrivateKey, hardwareKeyTag: String) {
        self.fixture = fixture
        self.platform = platform
        self.key = key
        self.hardwareKeyTag = hardwareKeyTag
    }

    /// A device registered under `session` (a new account when nil) with the test attestation authorities.
    static func registered(at fixture: ProviderFixture, _ platform: Platform, session: String? = nil) async throws -> AttestationDevice {
        var session = session
        if session == nil { session = try await fixture.account().session }
        let challenge = try await fixture.nonce()
        let key = P256.Signing.PrivateKey()
        let attestation: String
        let tag: String
        switch platform {
        case .ios:
            let attested = try fixture.appleAuthority.attest(
                publicKey: key.publicKey, app: ProviderFixture.appleApp, environment: .production,
                clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))), at: fixture.clock.now())
            attestation = attested.attestationObject.base64EncodedString()
            tag = Base64URL.encode(attested.keyID)
        case .android:
            let chain = try fixture.authority.attest(
                publicKey: key.publicKey, challenge: Data(challenge.utf8), application: ProviderFixture.application,
                at: fixture.clock.now())
            attestation = Self.androidWire(chain)
            tag = UUID().uuidString
        }
        let device = AttestationDevice(fixture: fixture, platform: platform, key: key, hardwareKeyTag: tag)
        let answer = try await fixture.request(.post, "/wallet-instances", json: [
            "challenge": .string(challenge), "key_attestation": .string(attestation), "hardware_key_tag": .string(tag),
        ], session: session)
        #expect(answer.status == 204, "registration: \(String(decoding: answer.body, as: UTF8.self))")
        return device
    }

    /// `base64("b64(DER),b64(DER),…")`: the IT-Wallet reference apps' spelling of an Android chain.
    static func androidWire(_ chain: [Data]) -> String {
        Data(chain.map { $0.base64EncodedString() }.joined(separator: ",").utf8).base64EncodedString()
    }

    // MARK: Requests

    /// What a test may change in a request; everything else is built correctly.
    struct Changes: Sendable {
        var typ: String?
        var kid: String?
        var iss: String?
        var aud: String?
        /// Another `hardware_key_tag` (and, in 1.3, `iss`).
        var hardwareKeyTag: String?
        var removeClaim: String?
        var claims: JSONObject = [:]
        var lifetime: Int64 = 3600
        var iat: Date?
        /// Sign the request with another key than `cnf.jwk`.
        var signWithOtherKey = false
        /// The client_data the proofs cover names another key / nonce.
        var clientDataNonce: String?
        var proofsByOtherKey = false
        var counter: UInt32?
        /// Android: the integrity token's request hash over other data, or its device verdict failing.
        var integrityHashOfOtherData = false
        var integrityDeviceFails = false
        var hardwareSignature: String?
        /// 1.5 Key Attestation: send the split App Attest assertion at the top (1.3's form) instead of per key.
        var topLevelIntegrity = false
    }

    /// A `wia-request+jwt` for `nonce`, bound to `key`.
    func walletInstanceRequest(
        _ version: ITWalletVersion, nonce: String, key: P256.Signing.PrivateKey = P256.Signing.PrivateKey(), changes: Changes = Changes()
    ) throws -> String {
        let jwk = JWK(publicKey: key.publicKey)
        let thumbprint = jwk.thumbprintBase64URL()
        let clientData = Self.clientData(version, nonce: changes.clientDataNonce ?? nonce, thumbprintMember: .string(thumbprint),
            member: "jwk_thumbprint")
        let proofs = try self.proofs(over: clientData, changes: changes)
        var claims = baseClaims(version, nonce: nonce, jwk: jwk, changes: changes)
        claims["hardware_signature"] = .string(changes.hardwareSignature ?? proofs.signature)
        claims["integrity_assertion"] = .string(proofs.integrity)
        return try sign(type: ITWalletType.walletInstanceAttestationRequest, claims: claims, key: key, changes: changes)
    }

    /// A `wua-request+jwt` (1.3) or `ka-request+jwt` (1.5) for `keys`, each element made by `element`.
    func keyAttestationRequest(
        _ version: ITWalletVersion, nonce: String, keys: [P256.Signing.PrivateKey], changes: Changes = Changes(),
        elements: [String]? = nil
    ) throws -> String {
        let thumbprints = keys.map { JWK(publicKey: $0.publicKey).thumbprintBase64URL() }
        let clientData = Self.clientData(version, nonce: changes.clientDataNonce ?? nonce,
            thumbprintMember: .array(thumbprints.map { .string($0) }), member: "jwk_thumbprints")
        var claims = baseClaims(version, nonce: nonce, jwk: JWK(publicKey: keys[0].publicKey), changes: changes)
        let perKey = version == .v1_5 && platform == .ios && !changes.topLevelIntegrity
        var assertions: [Data] = []
        if perKey {
            for _ in keys { assertions.append(try appAttestAssertion(over: clientData, changes: changes)) }
            let first = try AppAttestAssertionObject(assertions[0])
            claims["hardware_signature"] = .string(changes.hardwareSignature ?? first.signature.base64EncodedString())
        } else {
            let proofs = try self.proofs(over: clientData, changes: changes)
            claims["hardware_signature"] = .string(changes.hardwareSignature ?? proofs.signature)
            // 1.5: no top-level integrity_assertion on Android (the flow forbids it); 1.3 always has one.
            if version == .v1_3 || platform == .ios { claims["integrity_assertion"] = .string(proofs.integrity) }
        }
        claims["keys_to_attest"] = .array(try (elements ?? keys.enumerated().map { index, key in
            try element(key: key, nonce: nonce, assertion: perKey ? assertions[index] : nil)
        }).map { .string($0) })
        if let name = changes.removeClaim { claims[name] = nil }
        return try sign(
            type: version == .v1_5 ? ITWalletType.keyAttestationRequest : ITWalletType.walletUnitAttestationRequest,
            claims: claims, key: keys[0], changes: changes)
    }

    /// One `key-attestation-request+jwt`: Android with its key attestation (challenge = the nonce's UTF-8 bytes),
    /// iOS 1.5 with its App Attest assertion.
    func element(
        key: P256.Signing.PrivateKey, nonce: String, assertion: Data? = nil, attestedKey: P256.Signing.PublicKey? = nil,
        challenge: String? = nil, securityLevel: AndroidSecurityLevel = .trustedEnvironment, signer: P256.Signing.PrivateKey? = nil,
        typ: String = ITWalletType.keyAttestationRequestElement, lifetime: Int64 = 3600, androidAttestation: Bool? = nil
    ) throws -> String {
        let jwk = JWK(publicKey: key.publicKey)
        var wscd: JSONObject = ["storage_type": "LOCAL_NATIVE"]
        if androidAttestation ?? (platform == .android) {
            let chain = try fixture.authority.attest(
                publicKey: attestedKey ?? key.publicKey, challenge: Data((challenge ?? nonce).utf8),
                application: ProviderFixture.application, at: fixture.clock.now(), securityLevel: securityLevel)
            wscd["attestation"] = .string(Self.androidWire(chain))
        }
        if let assertion { wscd["integrity_assertion"] = .string(assertion.base64EncodedString()) }
        let now = Int64(fixture.clock.now().timeIntervalSince1970)
        let claims: JSONObject = [
            "cnf": ["jwk": .object(jwk.with(kid: jwk.thumbprintBase64URL()).jsonObject)], "wscd_key_attestation": .object(wscd),
            "iat": .integer(now), "exp": .integer(now + lifetime),
        ]
        let header: JSONObject = ["typ": .string(typ), "kid": .string(jwk.thumbprintBase64URL())]
        return try CompactJWS.sign(header: header, claims: claims, key: .es256(signer ?? key)).compact
    }

    // MARK: Parts

    /// `client_data` as each version's client writes it: 1.3 the production client's `challenge`, 1.5 the text's `nonce`.
    static func clientData(_ version: ITWalletVersion, nonce: String, thumbprintMember: JSONValue, member: String) -> Data {
        let name = version == .v1_3 ? "challenge" : "nonce"
        return ([name: .string(nonce), member: thumbprintMember] as JSONObject).serialized()
    }

    private func baseClaims(_ version: ITWalletVersion, nonce: String, jwk: JWK, changes: Changes) -> JSONObject {
        let thumbprint = jwk.thumbprintBase64URL()
        let iat = Int64((changes.iat ?? fixture.clock.now()).timeIntervalSince1970)
        let tag = changes.hardwareKeyTag ?? hardwareKeyTag
        var claims: JSONObject = [
            "iss": .string(changes.iss ?? (version == .v1_3 ? tag : thumbprint)),
            "nonce": .string(nonce), "hardware_key_tag": .string(tag),
            "cnf": ["jwk": .object(jwk.with(kid: thumbprint).jsonObject)],
            "platform": .string(version == .v1_5 && platform == .ios ? "iOS" : platform.rawValue),
            "wallet_solution_id": "tessera", "wallet_solution_version": "1.5.0",
            "iat": .integer(iat), "exp": .integer(iat + changes.lifetime),
        ]
        if let aud = changes.aud { claims["aud"] = .string(aud) }
        for (name, value) in changes.claims { claims[name] = value }
        if let name = changes.removeClaim { claims[name] = nil }
        return claims
    }

    private func sign(type: String, claims: JSONObject, key: P256.Signing.PrivateKey, changes: Changes) throws -> String {
        let thumbprint = JWK(publicKey: key.publicKey).thumbprintBase64URL()
        let header: JSONObject = ["typ": .string(changes.typ ?? type), "kid": .string(changes.kid ?? thumbprint)]
        let signer = changes.signWithOtherKey ? P256.Signing.PrivateKey() : key
        return try CompactJWS.sign(header: header, claims: claims, key: .es256(signer)).compact
    }

    /// `hardware_signature` and `integrity_assertion` over `clientData`.
    private func proofs(over clientData: Data, changes: Changes) throws -> (signature: String, integrity: String) {
        switch platform {
        case .ios:
            let parts = try AppAttestAssertionObject(try appAttestAssertion(over: clientData, changes: changes))
            return (parts.signature.base64EncodedString(), parts.authenticatorData.base64EncodedString())
        case .android:
            let signer = changes.proofsByOtherKey ? P256.Signing.PrivateKey() : key
            // The production client: SHA256withECDSA over the client_data text.
            let signature = try signer.signature(for: clientData).derRepresentation.base64EncodedString()
            return (signature, try integrityToken(over: changes.integrityHashOfOtherData ? Data("other".utf8) : clientData,
                deviceFails: changes.integrityDeviceFails))
        }
    }

    /// An App Attest assertion object over `clientData` with the next counter.
    func appAttestAssertion(over clientData: Data, changes: Changes = Changes()) throws -> Data {
        let next = changes.counter ?? counter.withLock { value in
            value += 1
            return value
        }
        let signer = changes.proofsByOtherKey ? P256.Signing.PrivateKey() : key
        return try AppAttestTestAuthority.assertion(key: signer, app: ProviderFixture.appleApp, clientData: clientData, counter: next)
    }

    /// A Play-Integrity-shaped token under the test authority, `requestHash` = hex SHA-256 of `data`.
    func integrityToken(over data: Data, deviceFails: Bool = false) throws -> String {
        let signer = try fixture.authority.integritySigner(at: fixture.clock.now())
        let hash = Data(SHA256.hash(data: data)).map { String(format: "%02x", $0) }.joined()
        let package = ProviderFixture.application.packageName
        let payload: JSONObject = [
            "requestDetails": [
                "requestPackageName": .string(package), "requestHash": .string(hash),
                "timestampMillis": .string(String(Int64(fixture.clock.now().timeIntervalSince1970 * 1000))),
            ],
            "appIntegrity": ["appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": .string(package)],
            "deviceIntegrity": ["deviceRecognitionVerdict": deviceFails ? [] : ["MEETS_DEVICE_INTEGRITY"]],
        ]
        let header: JSONObject = ["x5c": .array(signer.chain.map { .string($0.base64EncodedString()) })]
        return try CompactJWS.sign(header: header, claims: payload, key: .es256(signer.key)).compact
    }
}
