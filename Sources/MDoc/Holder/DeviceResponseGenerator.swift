import Crypto
import Foundation
import TesseraCBOR
import TesseraCOSE

/// A credential as the holder stores it: what the issuer gave (IssuerSigned, bytes kept) and the
/// key the MSO binds.
public struct StoredCredential: Sendable {
    /// The docType the issuer signed (it must equal the MSO's); matched against each DocRequest.
    public var docType: String
    /// IssuerSigned as issued: every IssuerSignedItemBytes and the issuerAuth are kept as received.
    public var issuerSigned: IssuerSigned
    /// The key whose public part the MSO binds (DeviceKeyInfo); signs or MACs DeviceAuthentication.
    public var deviceKey: any DeviceKeySigner

    /// Pairs what the issuer returned with the key it was issued to; nothing is checked here (the verifier checks).
    public init(docType: String, issuerSigned: IssuerSigned, deviceKey: any DeviceKeySigner) {
        self.docType = docType
        self.issuerSigned = issuerSigned
        self.deviceKey = deviceKey
    }
}

/// How DeviceSigned is authenticated (§9.1.3).
public enum DeviceAuthMode: Sendable {
    /// DeviceSignature: ECDSA over DeviceAuthenticationBytes.
    case signature
    /// DeviceMac: HMAC with EMacKey from ECDH(SDeviceKey, EReaderKey).
    case mac(readerEphemeralKey: COSEKey)
}

/// Builds the DeviceResponse the holder returns (§8.3.2.1.2.2).
public enum DeviceResponseGenerator {
    /// ErrorCode for a requested document the holder does not return (§8.3.2.1.2.3: 0 = data not returned).
    public static let dataNotReturned = 0

    /// One Document per DocRequest the holder can answer, holding only the elements that are both
    /// requested and in `selection` (docType → namespace → elements the user consented to), each
    /// IssuerSignedItemBytes exactly as issued. Requested documents the holder does not hold, or the
    /// user withheld entirely, are listed in documentErrors.
    public static func generate(
        request: DeviceRequest, credentials: [StoredCredential], selection: [String: [String: Set<String>]],
        sessionTranscript: SessionTranscript, mode: DeviceAuthMode = .signature
    ) async throws(MDocError) -> DeviceResponse {
        var documents: [Document] = []
        var errors: [[String: Int]] = []
        for docRequest in request.docRequests {
            let items = docRequest.itemsRequest.value
            guard let credential = credentials.first(where: { $0.docType == items.docType }),
                let chosen = selection[items.docType]
            else {
                errors.append([items.docType: dataNotReturned])
                continue
            }
            documents.append(
                try await document(
                    for: items, credential: credential, chosen: chosen, sessionTranscript: sessionTranscript, mode: mode))
        }
        return DeviceResponse(documents: documents.isEmpty ? nil : documents, documentErrors: errors.isEmpty ? nil : errors)
    }

    /// Every element of `request` the credential holds: the "share all requested" selection.
    public static func selectAll(request: DeviceRequest, credentials: [StoredCredential]) -> [String: [String: Set<String>]] {
        var selection: [String: [String: Set<String>]] = [:]
        for docRequest in request.docRequests {
            let items = docRequest.itemsRequest.value
            guard let credential = credentials.first(where: { $0.docType == items.docType }) else { continue }
            var perNamespace: [String: Set<String>] = [:]
            perNamespace.reserveCapacity(items.nameSpaces.count)
            for (ns, elements) in items.nameSpaces {
                // Held and requested, in one pass over the held items (no set of the held ones to intersect).
                let held = credential.issuerSigned.nameSpaces?[ns] ?? []
                var both = Set<String>(minimumCapacity: min(held.count, elements.count))
                for item in held where elements[item.value.elementIdentifier] != nil {
                    both.insert(item.value.elementIdentifier)
                }
                perNamespace[ns] = both
            }
            selection[items.docType] = perNamespace
        }
        return selection
    }

    static func document(
        for items: ItemsRequest, credential: StoredCredential, chosen: [String: Set<String>],
        sessionTranscript: SessionTranscript, mode: DeviceAuthMode
    ) async throws(MDocError) -> Document {
        var nameSpaces: [String: [EncodedCBOR<IssuerSignedItem>]] = [:]
        for (ns, requested) in items.nameSpaces {
            // Requested and chosen: two lookups per stored item, no set built per name space.
            guard let chosenHere = chosen[ns], !chosenHere.isEmpty else { continue }
            let held = credential.issuerSigned.nameSpaces?[ns] ?? []
            var disclosed: [EncodedCBOR<IssuerSignedItem>] = []
            disclosed.reserveCapacity(min(held.count, requested.count))
            for item in held {
                let identifier = item.value.elementIdentifier
                if requested[identifier] != nil && chosenHere.contains(identifier) { disclosed.append(item) }
            }
            if !disclosed.isEmpty { nameSpaces[ns] = disclosed }
        }
        let deviceNameSpaces = try emptyDeviceNameSpaces()
        let payload = DeviceAuthentication.bytes(
            sessionTranscript: sessionTranscript, docType: items.docType, deviceNameSpacesBytes: deviceNameSpaces.bytes)
        let deviceAuth = try await authenticate(payload, key: credential.deviceKey, transcript: sessionTranscript, mode: mode)
        return Document(
            docType: items.docType,
            issuerSigned: IssuerSigned(nameSpaces: nameSpaces.isEmpty ? nil : nameSpaces, issuerAuth: credential.issuerSigned.issuerAuth),
            deviceSigned: DeviceSigned(nameSpaces: deviceNameSpaces, deviceAuth: deviceAuth))
    }

    /// `DeviceNameSpaces` with no device-signed element: the bytes of `{}` and the empty map they hold, made once
    /// (every response carries them).
    static func emptyDeviceNameSpaces() throws(MDocError) -> EncodedCBOR<[String: [String: CBOR]]> {
        try emptyDeviceNameSpacesOnce.get()
    }

    private static let emptyDeviceNameSpacesOnce = Result { () throws(MDocError) in
        try EncodedCBOR.decode(
            CBOR.map(CBORMap()).encoded(), malformed: { MDocError.malformed(structure: "DeviceNameSpaces", $0) },
            reading: { (_) throws(MDocError) in [String: [String: CBOR]]() })
    }

    /// The DeviceSignature protected header `{1: -7}`, encoded once; other algorithms are encoded when used.
    private static let es256ProtectedHeader = COSEProtectedHeader(COSEHeaders(algorithm: .es256))

    /// DeviceSignature or DeviceMac over the detached DeviceAuthenticationBytes (§9.1.3.4–9.1.3.6).
    static func authenticate(
        _ payload: Data, key: any DeviceKeySigner, transcript: SessionTranscript, mode: DeviceAuthMode
    ) async throws(MDocError) -> DeviceAuth {
        switch mode {
        case .signature:
            let protected = key.algorithm == .es256 ? es256ProtectedHeader : COSEProtectedHeader(COSEHeaders(algorithm: key.algorithm))
            let toBeSigned = COSEToBeSigned.signature1(bodyProtected: protected.rawBytes, externalAAD: Data(), payload: payload)
            let signature: Data
            do {
                signature = try await key.sign(toBeSigned)
            } catch {
                throw .deviceKeyFailure("signing: \(error)")
            }
            do {
                return .deviceSignature(try COSESign1(protected: protected, payload: nil, signature: signature))
            } catch {
                throw .cose(structure: "DeviceSignature", error)
            }
        case .mac(let readerKey):
            let shared: SharedSecret
            do {
                shared = try await key.sharedSecret(with: readerKey)
            } catch {
                throw .deviceKeyFailure("key agreement: \(error)")
            }
            let emacKey = EMacKey.derive(sharedSecret: shared, sessionTranscript: transcript)
            do {
                return .deviceMac(try COSEMac0.create(payload: payload, key: emacKey, detached: true))
            } catch {
                throw .cose(structure: "DeviceMac", error)
            }
        }
    }
}
