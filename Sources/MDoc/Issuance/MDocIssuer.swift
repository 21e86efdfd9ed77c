import Crypto
import Foundation
import TesseraCBOR
import TesseraCOSE
import TesseraCore

/// Issues mdocs (§9.1.2): for test issuers, demos and anyone running a test issuer.
///
/// Each element becomes an IssuerSignedItem with a fresh random salt (32 bytes, above the 16-byte
/// minimum of §9.1.2.5) and a digestID drawn at random, so neither reveals element order or count;
/// the MSO holds the digests over each IssuerSignedItemBytes, the device key and the validity window,
/// and is signed as a COSE_Sign1 (ES256 by default) with the document signer chain in x5chain.
public struct MDocIssuer: Sendable {
    /// The document signer's private key; it signs the MSO (its algorithm goes into the protected header).
    public let documentSignerKey: COSESigningKey
    /// DER certificates, document signer first (the IACA root is not included, §9.1.2.4).
    public let certificateChain: [Data]
    /// Gives `signed` and, when not passed, `validFrom` of the ValidityInfo.
    public let clock: any TesseraClock
    /// Draws the salts and shuffles the digestIDs.
    public let random: any RandomSource
    /// The MSO digest algorithm (§9.1.2.5); SHA-256 unless set.
    public var digestAlgorithm: DigestAlgorithm = .sha256
    /// Salt length in bytes.
    public var saltLength = 32

    /// An issuer with its document signer key and chain; time and randomness are injected for reproducible tests.
    public init(
        documentSignerKey: COSESigningKey, certificateChain: [Data], clock: any TesseraClock = SystemClock(),
        random: any RandomSource = SystemRandomSource()
    ) {
        self.documentSignerKey = documentSignerKey
        self.certificateChain = certificateChain
        self.clock = clock
        self.random = random
    }

    /// Issues `nameSpaces` (namespace → element identifier → value) for `deviceKey`.
    /// Elements of the mDL namespace are checked against their CDDL types first.
    public func issue(
        docType: String, nameSpaces: [String: [String: CBOR]], deviceKey: COSEKey, validFrom: Date? = nil,
        validUntil: Date, expectedUpdate: Date? = nil, keyAuthorizations: KeyAuthorizations? = nil
    ) throws(MDocError) -> IssuerSigned {
        guard saltLength >= 16 else {
            throw .invalidStructure(structure: "IssuerSignedItem", reason: "random must be at least 16 bytes (§9.1.2.5)")
        }
        let now = clock.now()
        let from = validFrom ?? now
        guard from < validUntil else {
            throw .invalidStructure(structure: "ValidityInfo", reason: "validUntil must be after validFrom")
        }
        var issued: [String: [EncodedCBOR<IssuerSignedItem>]] = [:]
        var digests: [String: [Int: Data]] = [:]
        for namespace in nameSpaces.keys.sorted() {
            let elements = nameSpaces[namespace] ?? [:]
            var ids = Array(0..<elements.count)
            var generator = random.generator
            ids.shuffle(using: &generator)
            var items: [EncodedCBOR<IssuerSignedItem>] = []
            var namespaceDigests: [Int: Data] = [:]
            for (index, identifier) in elements.keys.sorted().enumerated() {
                guard let value = elements[identifier] else { continue }
                try MDL.validate(namespace: namespace, element: identifier, value: value)
                let item = IssuerSignedItem(
                    digestID: UInt64(ids[index]), random: random.bytes(saltLength), elementIdentifier: identifier,
                    elementValue: value)
                let encoded: EncodedCBOR<IssuerSignedItem>
                do {
                    encoded = try EncodedCBOR(encoding: item)
                } catch {
                    throw .invalidStructure(structure: "IssuerSignedItem", reason: "\(error)")
                }
                // The digest covers IssuerSignedItemBytes = #6.24(bstr) as it will be sent.
                namespaceDigests[ids[index]] = digestAlgorithm.digest(CBOR.encodeTag24(encoded.bytes))
                items.append(encoded)
            }
            issued[namespace] = items
            digests[namespace] = namespaceDigests
        }
        let devicePublicKey: COSEKey
        do {
            devicePublicKey = try deviceKey.publicKey
        } catch {
            throw .cose(structure: "DeviceKey", error)
        }
        let mso = MobileSecurityObject(
            digestAlgorithm: digestAlgorithm, valueDigests: digests,
            deviceKeyInfo: DeviceKeyInfo(deviceKey: devicePublicKey, keyAuthorizations: keyAuthorizations),
            docType: docType,
            validityInfo: ValidityInfo(
                signed: TDate(now), validFrom: TDate(from), validUntil: TDate(validUntil),
                expectedUpdate: expectedUpdate.map(TDate.init)))
        let msoBytes = try encodeStructure(mso, "MobileSecurityObject")
        let issuerAuth: COSESign1
        do {
            issuerAuth = try COSESign1.sign(
                payload: CBOR.encodeTag24(msoBytes), with: documentSignerKey,
                unprotected: COSEHeaders(x5chain: certificateChain))
        } catch {
            throw .cose(structure: "IssuerAuth", error)
        }
        return IssuerSigned(nameSpaces: issued, issuerAuth: issuerAuth)
    }
}
