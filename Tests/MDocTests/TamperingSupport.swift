import Crypto
import Foundation
import Testing
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraTrust
@testable import MDoc

/// One valid holder response, the starting point of every tampering in `TamperingTests`: an mDL
/// issued by `TestWorld`, a request for a few elements, and the DeviceResponse the holder
/// generates for it over a QR-engagement transcript.
struct TamperingFixture {
    /// What the fixture's request asks for (all present in `TestWorld.mdlClaims`).
    static let requestedElements = ["age_over_18", "birth_date", "family_name", "given_name"]

    let world: TestWorld
    let transcript: SessionTranscript
    let readerKey: EphemeralPrivateKey
    let request: DeviceRequest
    let credential: StoredCredential
    let response: DeviceResponse

    /// - Parameters:
    ///   - issuerSigned: the credential; `world.issueMDL()` when nil.
    ///   - deviceKey: the key the holder authenticates with; the world's (the MSO's) when nil.
    ///   - mac: DeviceMac towards the transcript's reader key instead of DeviceSignature.
    init(
        world: TestWorld, issuerSigned: IssuerSigned? = nil, deviceKey: (any DeviceKeySigner)? = nil, mac: Bool = false
    ) async throws {
        self.world = world
        (transcript, readerKey) = try world.transcript()
        request = try TestWorld.request(Self.requestedElements)
        let credential = StoredCredential(
            docType: MDL.docType, issuerSigned: try issuerSigned ?? world.issueMDL(), deviceKey: deviceKey ?? world.deviceKey)
        self.credential = credential
        response = try await DeviceResponseGenerator.generate(
            request: request, credentials: [credential],
            selection: DeviceResponseGenerator.selectAll(request: request, credentials: [credential]),
            sessionTranscript: transcript, mode: mac ? .mac(readerEphemeralKey: readerKey.publicCOSEKey) : .signature)
    }

    /// A verifier that trusts the world's IACA.
    var verifier: MDocVerifier { MDocVerifier(trustAnchors: world.iaca.trustAnchors) }

    /// Verifies `response` twice — as the value in memory and as decoded from its wire form
    /// (`DeviceResponse(bytes: response.encoded())`) — expects both to report the same errors and
    /// elements, and returns the first outcome.
    ///
    /// `request` is the fixture's when nil; `transcript` likewise; `verifier` is `self.verifier` when nil.
    func verify(
        _ response: DeviceResponse, request: DeviceRequest? = nil, transcript: SessionTranscript? = nil,
        at instant: Date = TestWorld.now, readerKey: EphemeralPrivateKey? = nil, verifier: MDocVerifier? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> MDocVerificationOutcome {
        let verifier = verifier ?? self.verifier
        let request = request ?? self.request
        let transcript = transcript ?? self.transcript
        let outcome = await verifier.verify(
            response, request: request, sessionTranscript: transcript, at: instant, readerEphemeralKey: readerKey)
        let wire = try DeviceResponse(bytes: response.encoded())
        let wireOutcome = await verifier.verify(
            wire, request: request, sessionTranscript: transcript, at: instant, readerEphemeralKey: readerKey)
        #expect(wireOutcome.allErrors == outcome.allErrors, "the wire form reports other errors", sourceLocation: sourceLocation)
        #expect(
            wireOutcome.documents.map(\.issuerSignedElements) == outcome.documents.map(\.issuerSignedElements),
            sourceLocation: sourceLocation)
        #expect(
            wireOutcome.documents.map(\.deviceSignedElements) == outcome.documents.map(\.deviceSignedElements),
            sourceLocation: sourceLocation)
        return outcome
    }
}

// MARK: - Mutations

extension DeviceResponse {
    /// A copy whose first document has been changed by `body`.
    func tamperingDocument(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: (inout Document) throws -> Void
    ) throws -> DeviceResponse {
        var copy = self
        var documents = try #require(copy.documents, sourceLocation: sourceLocation)
        try #require(!documents.isEmpty, sourceLocation: sourceLocation)
        try body(&documents[0])
        copy.documents = documents
        return copy
    }
}

extension Document {
    /// The IssuerSignedItemBytes presented for `element`.
    func item(_ element: String, namespace: String = MDL.namespace, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> EncodedCBOR<IssuerSignedItem>
    {
        try #require(
            issuerSigned.nameSpaces?[namespace]?.first { $0.value.elementIdentifier == element },
            "no \(namespace)/\(element) in the document", sourceLocation: sourceLocation)
    }

    /// Puts `replacement` where the item for `element` was (same position in the array).
    mutating func replaceItem(
        _ element: String, namespace: String = MDL.namespace, with replacement: EncodedCBOR<IssuerSignedItem>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var items = try #require(issuerSigned.nameSpaces?[namespace], sourceLocation: sourceLocation)
        let index = try #require(
            items.firstIndex { $0.value.elementIdentifier == element }, sourceLocation: sourceLocation)
        items[index] = replacement
        issuerSigned.nameSpaces?[namespace] = items
    }

    /// Drops the item for `element`.
    mutating func removeItem(
        _ element: String, namespace: String = MDL.namespace, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var items = try #require(issuerSigned.nameSpaces?[namespace], sourceLocation: sourceLocation)
        let before = items.count
        items.removeAll { $0.value.elementIdentifier == element }
        try #require(items.count == before - 1, sourceLocation: sourceLocation)
        issuerSigned.nameSpaces?[namespace] = items
    }

    /// The MSO inside issuerAuth, bytes kept.
    func mso() throws -> EncodedCBOR<MobileSecurityObject> {
        try issuerSigned.mobileSecurityObject()
    }
}

extension IssuerSignedItem {
    /// Encoded once, deterministically, as `MDocIssuer` does.
    func encodedItem() throws -> EncodedCBOR<IssuerSignedItem> { try EncodedCBOR(encoding: self) }
}

extension COSESign1 {
    /// The same message with one bit of the signature flipped.
    func flippingSignatureBit(byte: Int = 0, mask: UInt8 = 0x01) throws -> COSESign1 {
        var signature = self.signature
        let index = signature.index(signature.startIndex, offsetBy: byte)
        signature[index] ^= mask
        return try COSESign1(protected: protected, unprotected: unprotected, payload: payload, signature: signature)
    }
}

// MARK: - Hand-built issuance

/// Builds what `MDocIssuer` builds, by hand, so that a test can put into the MSO what the issuer
/// would refuse (an unknown digest algorithm, a wrongly typed element).
enum HandIssuer {
    /// `MobileSecurityObjectBytes` signed with the world's document signer key; the x5chain goes
    /// into the unprotected bucket unless `x5chain` is nil.
    static func sign(msoBytes: Data, world: TestWorld, x5chain: [Data]?) throws -> COSESign1 {
        try COSESign1.sign(
            payload: CBOR.encodeTag24(msoBytes), with: world.issuer.documentSignerKey,
            unprotected: x5chain.map { COSEHeaders(x5chain: $0) } ?? COSEHeaders())
    }

    /// Signs `mso` (encoded with `CBOREncoder`) with the world's document signer and its chain.
    static func sign(_ mso: MobileSecurityObject, world: TestWorld) throws -> COSESign1 {
        try sign(msoBytes: CBOREncoder().encode(mso), world: world, x5chain: world.issuer.certificateChain)
    }

    /// Issues `elements` (namespace → identifier → value) without any type check: digestIDs
    /// 0, 1, … in identifier order, 16-byte salts, SHA-256 digests over each
    /// IssuerSignedItemBytes, and `digestAlgorithm` written into the MSO as given.
    static func issue(
        world: TestWorld, elements: [String: [String: CBOR]], digestAlgorithm: String = DigestAlgorithm.sha256.rawValue,
        docType: String = MDL.docType
    ) throws -> IssuerSigned {
        var nameSpaces: [String: [EncodedCBOR<IssuerSignedItem>]] = [:]
        var digests: [String: [Int: Data]] = [:]
        for namespace in elements.keys.sorted() {
            let values = elements[namespace] ?? [:]
            for (id, identifier) in values.keys.sorted().enumerated() {
                let value = try #require(values[identifier])
                let item = try IssuerSignedItem(
                    digestID: UInt64(id), random: world.random.bytes(16), elementIdentifier: identifier, elementValue: value
                ).encodedItem()
                nameSpaces[namespace, default: []].append(item)
                digests[namespace, default: [:]][id] = DigestAlgorithm.sha256.digest(CBOR.encodeTag24(item.bytes))
            }
        }
        var mso = MobileSecurityObject(
            digestAlgorithm: .sha256, valueDigests: digests, deviceKeyInfo: DeviceKeyInfo(deviceKey: world.deviceKey.publicKey),
            docType: docType,
            validityInfo: ValidityInfo(
                signed: TDate(TestWorld.now), validFrom: TDate(TestWorld.now),
                validUntil: TDate(TestWorld.now.addingTimeInterval(30 * 86_400))))
        mso.digestAlgorithm = digestAlgorithm
        return IssuerSigned(nameSpaces: nameSpaces, issuerAuth: try sign(mso, world: world))
    }
}

// MARK: - Device-signed elements

enum DeviceSigning {
    /// DeviceSigned holding `nameSpaces`, with a DeviceSignature by `key` over
    /// DeviceAuthenticationBytes (§9.1.3.4), built by hand rather than by the generator.
    static func signed(
        _ nameSpaces: [String: [String: CBOR]], docType: String = MDL.docType, transcript: SessionTranscript,
        key: SoftwareDeviceKey
    ) async throws -> DeviceSigned {
        let deviceNameSpaces = try EncodedCBOR<[String: [String: CBOR]]>(encoding: nameSpaces)
        let payload = DeviceAuthentication.bytes(
            sessionTranscript: transcript, docType: docType, deviceNameSpacesBytes: deviceNameSpaces.bytes)
        let protected = COSEProtectedHeader(COSEHeaders(algorithm: .es256))
        let toBeSigned = COSEToBeSigned.signature1(bodyProtected: protected.rawBytes, externalAAD: Data(), payload: payload)
        let signature = try await key.sign(toBeSigned)
        return DeviceSigned(
            nameSpaces: deviceNameSpaces,
            deviceAuth: .deviceSignature(try COSESign1(protected: protected, payload: nil, signature: signature)))
    }
}

// MARK: - Byte-level re-encodings

/// Ways to write the same IssuerSignedItem (same CBOR data model value) with other bytes.
enum ReEncoding: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The map's keys in the reverse of the received order.
    case keysReversed
    /// elementIdentifier's text length in a 1-byte argument although it is below 24 (not preferred serialization).
    case nonPreferredLength
    /// elementIdentifier as an indefinite-length text string of one chunk.
    case indefiniteLength

    var testDescription: String { rawValue }

    /// The item's map written this way, from the entries as received.
    func apply(to bytes: Data) throws -> Data {
        let map = try #require(try CBOR.decode(bytes).mapValue)
        switch self {
        case .keysReversed:
            return CBOR.map(CBORMap(Array(map.entries.reversed()))).encoded(options: .preserving)
        case .nonPreferredLength, .indefiniteLength:
            var out = Data([0xa0 | UInt8(map.count)])
            for entry in map.entries {
                out += entry.key.encoded()
                if entry.key == "elementIdentifier", let text = entry.value.textValue {
                    let utf8 = Data(text.utf8)
                    try #require(utf8.count < 24)
                    if self == .nonPreferredLength {
                        out += Data([0x78, UInt8(utf8.count)]) + utf8
                    } else {
                        out += Data([0x7f, 0x60 | UInt8(utf8.count)]) + utf8 + Data([0xff])
                    }
                } else {
                    out += entry.value.encoded()
                }
            }
            return out
        }
    }
}
