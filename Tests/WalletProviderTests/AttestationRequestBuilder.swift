import Crypto
import Foundation
import HolderKit
import ITWalletProtocol
import TesseraCore
import TesseraJOSE
import WalletInstanceKit
import WalletInstanceKitTesting

/// A registered Android instance (test key attestation) and the Wallet Attestation requests its wallet signs, built
/// field by field the way io-react-native-wallet v1.0.0 builds `wp-war+jwt` (and the 0.9 `war+jwt`), so a test can
/// change any one part.
struct RegisteredInstance {
    let fixture: ProviderFixture
    let session: String
    let integrity: TestDeviceIntegrityService
    let keyID: String
    let tag: String

    /// Registers a fresh instance in the session's account (`POST /wallet-instances`).
    static func register(_ fixture: ProviderFixture, session: String) async throws -> RegisteredInstance {
        let integrity = TestDeviceIntegrityService(
            keys: FileKeyStore(directory: fixture.directory.appendingPathComponent("keys-\(UUID().uuidString)")),
            authority: fixture.authority, application: ProviderFixture.application, clock: fixture.clock)
        let challenge = try await fixture.nonce()
        let key = try await integrity.createAttestedKey(challenge: challenge)
        let answer = try await fixture.request(.post, ITWalletEndpoint.registration, json: [
            "challenge": .string(challenge), "key_attestation": .string(key.keyAttestation),
            "hardware_key_tag": .string(key.hardwareKeyTag), "is_renewal": false,
        ], session: session)
        guard answer.status == 204 else { throw FixtureError("registration: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))") }
        return RegisteredInstance(fixture: fixture, session: session, integrity: integrity, keyID: key.keyID, tag: key.hardwareKeyTag)
    }

    /// The instance id the provider derives: base64url(SHA-256(hardware_key_tag)).
    var id: String { Base64URL.encode(Data(SHA256.hash(data: Data(tag.utf8)))) }

    /// One request, unsigned: its key, header and claims.
    struct Request {
        var key = P256.Signing.PrivateKey()
        var header: JSONObject
        var claims: JSONObject
        var nonce: String
        var jwk: JWK { JWK(publicKey: key.publicKey) }
        var thumbprint: String { jwk.thumbprintBase64URL() }

        /// Signed with `signer` (by default the request's own key, as the text requires).
        func assertion(signedBy signer: P256.Signing.PrivateKey? = nil) throws -> String {
            try CompactJWS.sign(header: header, claims: claims, key: .es256(signer ?? key)).compact
        }
    }

    /// A `wp-war+jwt` as io-react-native-wallet v1.0.0 signs it: header `{kid, typ}`, claims `aud` (the provider),
    /// `cnf.jwk` (with `kid`), `hardware_key_tag`, `hardware_signature`, `integrity_assertion`, `iss` (the bare
    /// thumbprint), `nonce`, `iat`, `exp` (+1 h); `client_data = {"challenge", "jwk_thumbprint"}`.
    func request10(nonce given: String? = nil, clientDataMember: ClientData.Encoding = .challengeMember) async throws -> Request {
        let nonce: String
        if let given { nonce = given } else { nonce = try await fixture.nonce() }
        var request = Request(header: [:], claims: [:], nonce: nonce)
        let tp = request.thumbprint
        let clientData = ClientData(encoding: clientDataMember, nonce: nonce, thumbprint: tp)
        let proofs = try await integrity.proofs(keyID: keyID, clientData: clientData.bytes)
        let now = Int64(fixture.clock.now().timeIntervalSince1970)
        var cnf = request.jwk.jsonObject
        cnf["kid"] = .string(tp)
        request.header = ["kid": .string(tp), "typ": .string(ITWalletType.walletProviderAttestationRequest)]
        request.claims = [
            "aud": .string(fixture.baseURL), "cnf": ["jwk": .object(cnf)], "hardware_key_tag": .string(tag),
            "hardware_signature": .string(proofs.hardwareSignature), "integrity_assertion": .string(proofs.integrityAssertion),
            "iss": .string(tp), "nonce": .string(nonce), "iat": .integer(now), "exp": .integer(now + 3600),
        ]
        return request
    }

    /// The 0.9 `war+jwt` (pre-1.0 client): `challenge` instead of `nonce`, `sub` naming the provider, no `aud`.
    func request09(nonce: String? = nil) async throws -> Request {
        var request = try await request10(nonce: nonce)
        request.header["typ"] = .string(ITWalletType.walletAttestationRequest)
        request.claims["aud"] = nil
        request.claims["nonce"] = nil
        request.claims["sub"] = .string(fixture.baseURL)
        request.claims["challenge"] = .string(request.nonce)
        return request
    }

    /// `POST path {"assertion": assertion}`.
    func post(_ assertion: String, to path: String = ITWalletEndpoint.attestation(.v1_0)) async throws -> ProviderFixture.Answer {
        try await fixture.request(.post, path, json: ["assertion": .string(assertion)])
    }
}
