import Crypto
import DeviceAttestation
import Foundation
import SwiftASN1
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import X509

/// Issues App Attest attestation objects and assertions in Apple's exact format — an x5c of credential
/// certificate (with the nonce extension 1.2.840.113635.100.8.2) and intermediate under a test root, authenticator
/// data with rpIdHash, counter, aaguid, credentialId and the COSE key — so that a Wallet Provider's iOS path runs end to
/// end on Linux. A verifier trusts them only when the test root is given in `AppAttestPolicy.trustedRoots`; under
/// the Apple root they fail `untrustedRoot`.
///
/// The receipt is an empty byte string: it is a CMS structure signed by Apple for fraud assessment, which the
/// verifier does not check (see `AppAttestAttestation.receipt`).
public struct AppAttestTestAuthority: Sendable {
    public let rootCertificate: Certificate
    public let intermediateCertificate: Certificate
    let intermediateKey: P256.Signing.PrivateKey

    /// A new root (`CN=commonName`) and intermediate, both valid from `notBefore` to `notAfter`.
    public static func generate(
        commonName: String, notBefore: Date, notAfter: Date, random: (any RandomSource)?
    ) throws(DeviceAttestationError) -> AppAttestTestAuthority {
        // Same certificate profile as the Android test authority: CA root and CA intermediate, P-256.
        AppAttestTestAuthority(sharing: try AndroidTestAttestationAuthority.generate(
            commonName: commonName, notBefore: notBefore, notAfter: notAfter, random: random))
    }

    /// An authority on the root and intermediate of an Android test authority: one test root then stands for both
    /// platforms (what `tessera wallet-instance test-root` writes and `--trust-test-attestation-root` trusts).
    public init(sharing authority: AndroidTestAttestationAuthority) {
        rootCertificate = authority.rootCertificate
        intermediateCertificate = authority.intermediateCertificate
        intermediateKey = authority.intermediateKey
    }

    /// The attestation object `attestKey` would return for `publicKey`, and its keyId (SHA-256 of the X9.63 point).
    /// Its nonce is SHA-256(authData ‖ clientDataHash); the counter is 0. `extensions` (e.g. `ios27Extensions`) is
    /// appended to the authenticator data with the ED flag clear, as iOS 27 devices do.
    public func attest(
        publicKey: P256.Signing.PublicKey, app: AppAttestAppID, environment: AppAttestEnvironment,
        clientDataHash: Data, at instant: Date, extensions: Data? = nil
    ) throws(DeviceAttestationError) -> (attestationObject: Data, keyID: Data) {
        let keyID = Data(SHA256.hash(data: publicKey.x963Representation))
        var authData = app.rpIDHash
        authData.append(0x40)  // AT: attested credential data follows
        authData.append(contentsOf: [0, 0, 0, 0])
        authData.append(environment.aaguid)
        authData.append(contentsOf: [UInt8(keyID.count >> 8), UInt8(keyID.count & 0xFF)])
        authData.append(keyID)
        authData.append(COSEKey(publicKey).cbor.encoded())
        if let extensions { authData.append(extensions) }
        let nonce = Data(SHA256.hash(data: authData + clientDataHash))
        let notBefore = Date(timeIntervalSince1970: (instant.timeIntervalSince1970 - 60).rounded(.down))
        do {
            let nonceExtension = try Self.nonceExtension(nonce)
            let credential = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(publicKey),
                notValidBefore: notBefore, notValidAfter: min(notBefore.addingTimeInterval(3 * 86_400), intermediateCertificate.notValidAfter),
                issuer: intermediateCertificate.subject,
                subject: try DistinguishedName {
                    CommonName(keyID.map { String(format: "%02x", $0) }.joined())
                    OrganizationName("Tessera Test App Attestation")
                },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    Certificate.Extension(oid: AppAttestNonce.oid, critical: false, value: ArraySlice(nonceExtension))
                },
                issuerPrivateKey: .init(intermediateKey))
            let x5c: [CBOR] = [
                .bytes(try AndroidTestAttestationAuthority.der(credential)),
                .bytes(try AndroidTestAttestationAuthority.der(intermediateCertificate)),
            ]
            let object: CBOR = [
                "fmt": "apple-appattest",
                "attStmt": ["x5c": .array(x5c), "receipt": .bytes(Data())],
                "authData": .bytes(authData),
            ]
            return (object.encoded(), keyID)
        } catch {
            throw .issuanceFailed("creating the App Attest credential certificate: \(error)")
        }
    }

    /// An assertion (`generateAssertion`) made with `key`: see `assertionAuthenticatorData`, `assertionNonce` and
    /// `assertionObject`, the three steps for a key that signs elsewhere (a `KeyStore`).
    public static func assertion(
        key: P256.Signing.PrivateKey, app: AppAttestAppID, clientData: Data, counter: UInt32, extensions: Data? = nil
    ) throws(DeviceAttestationError) -> Data {
        let authenticatorData = assertionAuthenticatorData(app: app, counter: counter, extensions: extensions)
        let nonce = assertionNonce(authenticatorData: authenticatorData, clientData: clientData)
        guard let signature = try? key.signature(for: nonce) else { throw .issuanceFailed("signing the assertion") }
        return assertionObject(signatureDER: signature.derRepresentation, authenticatorData: authenticatorData)
    }

    /// rpIdHash ‖ flags ‖ counter (big-endian) [‖ extensions, ED flag clear as on iOS 27]: an assertion's
    /// authenticator data.
    public static func assertionAuthenticatorData(app: AppAttestAppID, counter: UInt32, extensions: Data? = nil) -> Data {
        var authenticatorData = app.rpIDHash
        authenticatorData.append(0x40)
        authenticatorData.append(contentsOf: withUnsafeBytes(of: counter.bigEndian) { Array($0) })
        if let extensions { authenticatorData.append(extensions) }
        return authenticatorData
    }

    /// The extensions map iOS 27 appends to authenticator data: `apple_bundle_version_01` and
    /// `apple_validation_category_01` (four bytes, little-endian).
    public static func ios27Extensions(bundleVersion: String, validationCategory: UInt32) -> Data {
        let category = withUnsafeBytes(of: validationCategory.littleEndian) { Data($0) }
        let map: CBOR = [
            .text(AppAttestExtensions.bundleVersionKey): .text(bundleVersion),
            .text(AppAttestExtensions.validationCategoryKey): .bytes(category),
        ]
        return map.encoded()
    }

    /// The message the key signs (ECDSA P-256 / SHA-256, so hashed once more): SHA-256(authenticatorData ‖
    /// SHA-256(clientData)).
    public static func assertionNonce(authenticatorData: Data, clientData: Data) -> Data {
        Data(SHA256.hash(data: authenticatorData + Data(SHA256.hash(data: clientData))))
    }

    /// The CBOR map `{"signature", "authenticatorData"}`.
    public static func assertionObject(signatureDER: Data, authenticatorData: Data) -> Data {
        let object: CBOR = ["signature": .bytes(signatureDER), "authenticatorData": .bytes(authenticatorData)]
        return object.encoded()
    }

    /// SEQUENCE { [1] EXPLICIT OCTET STRING nonce }.
    private static func nonceExtension(_ nonce: Data) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            try sequence.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) { tagged in
                try tagged.serialize(ASN1OctetString(contentBytes: ArraySlice(nonce)))
            }
        }
        return serializer.serializedBytes
    }
}
