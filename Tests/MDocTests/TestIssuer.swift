import Crypto
import Foundation
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraTrust
import X509
@testable import MDoc
import TesseraTrustTesting

/// A test IACA, document signer and holder, all from a seeded source at a pinned instant.
struct TestWorld {
    static let now = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01T00:00:00Z
    let iaca: IACAIssuer
    let documentSigner: IssuedCertificate
    let issuer: MDocIssuer
    let deviceKey: SoftwareDeviceKey
    let random = SeededRandomSource(seed: 42)

    init(seed: UInt64 = 1) throws {
        let random = SeededRandomSource(seed: seed)
        var generator = random.generator
        iaca = try IACAIssuer.create(
            IACARootRequest(country: "US", commonName: "Tessera Test IACA", issuerAlternativeName: .rfc822Name("iaca@example.com")),
            now: Self.now.addingTimeInterval(-86_400), random: &generator)
        documentSigner = try iaca.issueDocumentSigner(
            DocumentSignerRequest(commonName: "Tessera Test DS"), now: Self.now.addingTimeInterval(-3_600), random: &generator)
        guard case .p256(let dsKey) = documentSigner.privateKey else { throw MDocError.deviceKeyFailure("not P-256") }
        issuer = MDocIssuer(
            documentSignerKey: .p256(dsKey), certificateChain: [try documentSigner.derEncoded()],
            clock: FixedClock(Self.now), random: random)
        deviceKey = SoftwareDeviceKey(try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32)))
    }

    static let mdlClaims: [String: [String: CBOR]] = [
        MDL.namespace: [
            "family_name": "Doe", "given_name": "Jane", "birth_date": .tagged(1004, "1990-05-17"),
            "issue_date": .tagged(1004, "2024-01-01"), "expiry_date": .tagged(1004, "2029-01-01"),
            "issuing_country": "US", "issuing_authority": "Tessera DMV", "document_number": "T1234567",
            "portrait": .bytes(Data([0xff, 0xd8, 0xff, 0xe0])), "age_over_18": true, "age_over_21": false,
            "un_distinguishing_sign": "USA",
            "driving_privileges": [["vehicle_category_code": "B", "issue_date": .tagged(1004, "2024-01-01")]],
        ],
        "org.iso.18013.5.1.aamva": ["DHS_compliance": "F"],
    ]

    func issueMDL(validUntil: Date = now.addingTimeInterval(30 * 86_400), keyAuthorizations: KeyAuthorizations? = nil)
        throws -> IssuerSigned
    {
        try issuer.issue(
            docType: MDL.docType, nameSpaces: Self.mdlClaims, deviceKey: deviceKey.publicKey, validUntil: validUntil,
            keyAuthorizations: keyAuthorizations)
    }

    var credential: StoredCredential {
        get throws { StoredCredential(docType: MDL.docType, issuerSigned: try issueMDL(), deviceKey: deviceKey) }
    }

    static func request(_ elements: [String], namespace: String = MDL.namespace, docType: String = MDL.docType) throws
        -> DeviceRequest
    {
        let items = ItemsRequest(docType: docType, nameSpaces: [namespace: Dictionary(uniqueKeysWithValues: elements.map { ($0, false) })])
        return DeviceRequest(docRequests: [DocRequest(itemsRequest: try EncodedCBOR(encoding: items))])
    }

    /// A QR-engagement transcript with fresh ephemeral keys.
    func transcript() throws -> (SessionTranscript, reader: EphemeralPrivateKey) {
        let device = try EphemeralPrivateKey.generate(random: random)
        let reader = try EphemeralPrivateKey.generate(random: random)
        let engagement = try DeviceEngagement(security: .init(eDeviceKey: device.publicCOSEKey)).encoded()
        let readerKeyBytes = try EncodedCBOR<CBOR>(encoding: reader.publicCOSEKey.cbor)
        return (SessionTranscript(deviceEngagementBytes: engagement.bytes, eReaderKeyBytes: readerKeyBytes.bytes, handover: .qr), reader)
    }
}

