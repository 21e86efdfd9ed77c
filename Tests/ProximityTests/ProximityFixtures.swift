import Crypto
import Foundation
import MDoc
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraTrust
import TesseraTrustTesting

/// A test issuer (IACA + document signer), a reader PKI, and an mDL for a software device key, all from a
/// seeded random source at a pinned instant.
struct ProximityFixtures {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    let random: SeededRandomSource
    let iaca: IACAIssuer
    let readerRoot: ReaderRootIssuer
    let readerIdentity: (key: COSESigningKey, chain: [Data])
    let credential: StoredCredential

    init(seed: UInt64 = 7) throws {
        random = SeededRandomSource(seed: seed)
        var generator = random.generator
        iaca = try IACAIssuer.create(
            IACARootRequest(country: "US", commonName: "Test IACA", issuerAlternativeName: .rfc822Name("iaca@example.com")),
            now: Self.now.addingTimeInterval(-86_400), random: &generator)
        let ds = try iaca.issueDocumentSigner(
            DocumentSignerRequest(commonName: "Test DS"), now: Self.now.addingTimeInterval(-86_400), random: &generator)
        guard case .p256(let dsKey) = ds.privateKey else { throw FixtureFailure("DS key is not P-256") }
        readerRoot = try ReaderRootIssuer.create(
            ReaderRootRequest(commonName: "Test Reader Root"), now: Self.now.addingTimeInterval(-86_400), random: &generator)
        let reader = try readerRoot.issueReaderCertificate(
            ReaderCertificateRequest(commonName: "Test Reader"), now: Self.now.addingTimeInterval(-86_400), random: &generator)
        guard case .p256(let readerKey) = reader.privateKey else { throw FixtureFailure("reader key is not P-256") }
        readerIdentity = (.p256(readerKey), [try reader.derEncoded()])
        let deviceKey = SoftwareDeviceKey(try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32)))
        let issuer = MDocIssuer(
            documentSignerKey: .p256(dsKey), certificateChain: [try ds.derEncoded()], clock: FixedClock(Self.now.addingTimeInterval(-3600)),
            random: random)
        let issued = try issuer.issue(
            docType: MDL.docType, nameSpaces: [MDL.namespace: Self.claims], deviceKey: deviceKey.publicKey,
            validUntil: Self.now.addingTimeInterval(30 * 86_400))
        credential = StoredCredential(docType: MDL.docType, issuerSigned: issued, deviceKey: deviceKey)
    }

    static let claims: [String: CBOR] = [
        "family_name": "Doe", "given_name": "Jane", "birth_date": .tagged(CBORTag.fullDate, "1990-05-17"),
        "issue_date": .tagged(CBORTag.fullDate, "2024-01-01"), "expiry_date": .tagged(CBORTag.fullDate, "2030-01-01"),
        "issuing_country": "US", "issuing_authority": "Test DMV", "document_number": "D1234567",
        "portrait": .bytes(Data([0xff, 0xd8, 0xff, 0xe0])), "age_over_18": true, "age_over_21": true,
        "un_distinguishing_sign": "USA",
        "driving_privileges": [["vehicle_category_code": "B", "issue_date": .tagged(CBORTag.fullDate, "2024-01-01")]],
    ]
}

struct FixtureFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
