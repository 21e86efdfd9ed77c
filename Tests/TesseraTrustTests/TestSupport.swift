import Foundation
import SwiftASN1
import TesseraTrust
import Testing
import X509
@_exported import TesseraTestSupport
import TesseraTrustTesting


/// The ISO/IEC 18013-5 Annex D certificates (Fixtures/iso18013-5-annex-d.json).
struct AnnexDCertificates {
    let iacaRoot: Data
    let documentSigner: Data
    let readerRoot: Data
    let reader: Data

    private struct File: Decodable {
        let vectors: [String: String]
    }

    init() throws {
        guard let url = Bundle.module.url(forResource: "iso18013-5-annex-d", withExtension: "json", subdirectory: "Fixtures")
        else { throw FixtureError.missing("iso18013-5-annex-d.json") }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        func vector(_ name: String) throws -> Data {
            guard let hex = file.vectors[name] else { throw FixtureError.missing(name) }
            return try Data(hex: hex)
        }
        iacaRoot = try vector("IACARootCertificate")
        documentSigner = try vector("DocumentSignerCertificate")
        readerRoot = try vector("ReaderRootCertificate")
        reader = try vector("ReaderCertificate")
    }
}

/// SplitMix64: a seeded generator so that test keys and serial numbers are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Date {
    /// `2021-01-01T00:00:00Z`, the instant inside every Annex D validity window.
    static let annexDInstant = Date(timeIntervalSince1970: 1_609_459_200)

    static func utc(_ year: Int, _ month: Int, _ day: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? .distantPast
    }
}

extension Certificate {
    var der: Data {
        get throws { try CertificatePEM.der(self) }
    }

    /// A copy with changed fields, re-signed by `signer` (the subject key stays).
    func resigned(
        by signer: SigningKey,
        issuer: DistinguishedName? = nil,
        subject: DistinguishedName? = nil,
        notBefore: Date? = nil,
        notAfter: Date? = nil,
        publicKey: Certificate.PublicKey? = nil,
        editing edit: (inout [Certificate.Extension]) throws -> Void = { _ in }
    ) throws -> Certificate {
        var extensions = Array(self.extensions)
        try edit(&extensions)
        return try Certificate(
            version: .v3,
            serialNumber: serialNumber,
            publicKey: publicKey ?? self.publicKey,
            notValidBefore: notBefore ?? notValidBefore,
            notValidAfter: notAfter ?? notValidAfter,
            issuer: issuer ?? self.issuer,
            subject: subject ?? self.subject,
            signatureAlgorithm: signer.algorithm == .p256 ? .ecdsaWithSHA256 : .ecdsaWithSHA384,
            extensions: Certificate.Extensions(extensions),
            issuerPrivateKey: signer.certificatePrivateKey
        )
    }
}

extension Array where Element == Certificate.Extension {
    mutating func remove(_ oid: ASN1ObjectIdentifier) {
        removeAll { $0.oid == oid }
    }

    mutating func replace(_ ext: Certificate.Extension) {
        if let index = firstIndex(where: { $0.oid == ext.oid }) {
            self[index] = ext
        } else {
            append(ext)
        }
    }
}

enum OID {
    static let issuerAltName: ASN1ObjectIdentifier = [2, 5, 29, 18]
    static let crlDistributionPoints: ASN1ObjectIdentifier = [2, 5, 29, 31]
    static let freshestCRL: ASN1ObjectIdentifier = [2, 5, 29, 46]
}

func name(country: String? = nil, state: String? = nil, commonName: String) throws -> DistinguishedName {
    try DistinguishedName {
        if let country { CountryName(country) }
        if let state { StateOrProvinceName(state) }
        CommonName(commonName)
    }
}

/// A generated IACA + Document Signer pair and a reader root + reader certificate, all valid at `now`.
struct GeneratedPKI {
    static let now = Date.utc(2025, 3, 1)

    let iaca: IACAIssuer
    let documentSigner: IssuedCertificate
    let readerRoot: ReaderRootIssuer
    let reader: IssuedCertificate

    init(
        seed: UInt64 = 18013,
        stateOrProvince: String? = nil,
        iacaValidityDays: Int = 9 * 365,
        keyAlgorithm: SigningKeyAlgorithm = .p256,
        crlURI: String? = nil
    ) throws {
        var random = SeededGenerator(seed: seed)
        iaca = try IACAIssuer.create(
            IACARootRequest(
                country: "UT",
                stateOrProvince: stateOrProvince,
                organization: "Utopia DMV",
                commonName: "Utopia IACA",
                issuerAlternativeName: .uniformResourceIdentifier("https://dmv.utopia.example"),
                crlDistributionPointURI: crlURI,
                validityDays: iacaValidityDays,
                keyAlgorithm: keyAlgorithm
            ),
            now: Self.now,
            random: &random
        )
        documentSigner = try iaca.issueDocumentSigner(
            DocumentSignerRequest(commonName: "Utopia DS 1"),
            now: Self.now,
            random: &random
        )
        readerRoot = try ReaderRootIssuer.create(
            ReaderRootRequest(commonName: "Utopia reader root", country: "UT"),
            now: Self.now,
            random: &random
        )
        reader = try readerRoot.issueReaderCertificate(
            ReaderCertificateRequest(commonName: "Utopia reader"),
            now: Self.now,
            random: &random
        )
    }

    var iacaKey: SigningKey { iaca.root.privateKey }
    var readerRootKey: SigningKey { readerRoot.root.privateKey }

    func validateDS(_ chain: [Certificate], anchors: [Certificate]? = nil, options: AnnexBOptions = .default) async throws
        -> ChainValidationOutcome
    {
        await validateDocumentSignerChain(
            try chain.map { try $0.der },
            anchors: TrustAnchors(anchors ?? [iaca.root.certificate]),
            at: Self.now.addingTimeInterval(3600),
            options: options
        )
    }

    func validateReader(_ chain: [Certificate], anchors: [Certificate]? = nil) async throws -> ChainValidationOutcome {
        await validateReaderChain(
            try chain.map { try $0.der },
            anchors: TrustAnchors(anchors ?? [readerRoot.root.certificate]),
            at: Self.now.addingTimeInterval(3600)
        )
    }
}

/// `failures` contains a case matching `predicate`.
func contains(_ outcome: ChainValidationOutcome, where predicate: (TrustError) -> Bool) -> Bool {
    outcome.failures.contains(where: predicate)
}
