import Crypto
import Foundation
import TesseraCore
import TesseraCBOR
import TesseraCOSE
import TesseraTrust
import X509

/// The mdoc reader's verification of a DeviceResponse (ISO/IEC 18013-5:2021 §9.3.1), returning
/// one outcome that lists every failure.
///
/// Per document: the issuer signature over the MSO; the document signer chain to a trusted IACA
/// under Annex B at the given instant (every link); docType equal in request, Document and MSO;
/// a supported digest algorithm; every presented element's digest over its IssuerSignedItemBytes
/// exactly as received; the MSO validity window; DeviceSignature or DeviceMac over
/// DeviceAuthenticationBytes with the MSO device key; device-signed elements allowed by
/// keyAuthorizations; and every requested element present.
public struct MDocVerifier: Sendable {
    /// The IACA roots the document signer chains must lead to (not reader roots).
    public var trustAnchors: TrustAnchors
    /// Which Annex B certificate rules to enforce; `.default` accepts the Annex D example chains.
    public var annexB: AnnexBOptions
    /// Document Signer chains that validated, reused while every certificate on them is valid (nil: each chain is
    /// validated on every presentation). Copies of the verifier share it.
    public var chainCache: DocumentSignerChainCache?

    /// A verifier that trusts `trustAnchors` as IACA roots, remembering the DS chains that validated.
    public init(
        trustAnchors: TrustAnchors, annexB: AnnexBOptions = .default,
        chainCache: DocumentSignerChainCache? = DocumentSignerChainCache()
    ) {
        self.trustAnchors = trustAnchors
        self.annexB = annexB
        self.chainCache = chainCache
    }

    /// Verifies `response`. `request` (when given) is what was asked for; `readerEphemeralKey` is
    /// needed only to check a DeviceMac.
    public func verify(
        _ response: DeviceResponse, request: DeviceRequest? = nil, sessionTranscript: SessionTranscript, at instant: Date,
        readerEphemeralKey: EphemeralPrivateKey? = nil
    ) async -> MDocVerificationOutcome {
        var errors: [MDocError] = []
        if !response.version.hasPrefix("1.") {
            errors.append(.unsupportedVersion(structure: "DeviceResponse", version: response.version))
        }
        if response.status != DeviceResponse.Status.ok.rawValue {
            errors.append(.invalidStructure(structure: "DeviceResponse", reason: "status \(response.status)"))
        }
        for docError in response.documentErrors ?? [] {
            for (docType, code) in docError.sorted(by: { $0.key < $1.key }) {
                errors.append(.documentError(docType: docType, code: code))
            }
        }
        let documents = response.documents ?? []
        var verified: [VerifiedDocument] = []
        for document in documents {
            let items = request?.docRequests.first(where: { $0.itemsRequest.value.docType == document.docType })?
                .itemsRequest.value
            if let request, items == nil {
                // A document nobody asked for (§9.3.1: the docType must match the request).
                let asked = request.docRequests.map(\.itemsRequest.value.docType).joined(separator: ", ")
                errors.append(.docTypeMismatch(expected: asked, found: document.docType, source: "Document"))
            }
            verified.append(
                await verify(
                    document, requested: items, sessionTranscript: sessionTranscript, at: instant,
                    readerEphemeralKey: readerEphemeralKey))
        }
        for docRequest in request?.docRequests ?? [] {
            let docType = docRequest.itemsRequest.value.docType
            let answered = documents.contains { $0.docType == docType }
            let reported = (response.documentErrors ?? []).contains { $0[docType] != nil }
            if !answered && !reported { errors.append(.requestedDocumentMissing(docType: docType)) }
        }
        return MDocVerificationOutcome(errors: errors, documents: verified)
    }

    /// Verifies one Document; `requested` is its ItemsRequest, if known.
    public func verify(
        _ document: Document, requested: ItemsRequest?, sessionTranscript: SessionTranscript, at instant: Date,
        readerEphemeralKey: EphemeralPrivateKey? = nil
    ) async -> VerifiedDocument {
        var result = VerifiedDocument(
            docType: document.docType, issuerSignedElements: [:], deviceSignedElements: [:], validityInfo: nil,
            documentSigner: nil, errors: [])
        if let requested, requested.docType != document.docType {
            result.errors.append(.docTypeMismatch(expected: requested.docType, found: document.docType, source: "Document"))
        }
        let issuerAuth = document.issuerSigned.issuerAuth

        // The document signer: chain to an IACA, then the signature over the MSO.
        // Issuer-signed values are returned only when this is true: digests vouch for nothing
        // unless the MSO itself is authentic.
        var issuerAuthentic = false
        let chain = issuerAuth.unprotected.x5chain ?? issuerAuth.protected.headers.x5chain ?? []
        if chain.isEmpty {
            result.errors.append(.documentSignerCertificateMissing(docType: document.docType))
        } else {
            let outcome = if let chainCache {
                await chainCache.validate(chain, anchors: trustAnchors, at: instant, options: annexB)
            } else {
                await validateDocumentSignerChain(chain, anchors: trustAnchors, at: instant, options: annexB)
            }
            result.errors += outcome.failures.map { .documentSignerChainInvalid(docType: document.docType, $0) }
            if let leaf = outcome.leaf ?? (try? Certificate(derEncoded: Array(chain[0]))) {
                result.documentSigner = leaf
                do {
                    let key = try Self.verificationKey(leaf)
                    try issuerAuth.verify(with: key)
                    issuerAuthentic = outcome.isValid
                } catch {
                    result.errors.append(.issuerSignatureInvalid(docType: document.docType))
                }
            }
        }

        // The MSO: what the issuer vouches for.
        let mso: MobileSecurityObject
        do {
            mso = try document.issuerSigned.mobileSecurityObject().value
        } catch {
            result.errors.append(error)
            return result
        }
        result.validityInfo = mso.validityInfo
        if !mso.version.hasPrefix("1.") {
            result.errors.append(.unsupportedVersion(structure: "MobileSecurityObject", version: mso.version))
        }
        if mso.docType != document.docType {
            result.errors.append(.docTypeMismatch(expected: document.docType, found: mso.docType, source: "MSO"))
        }
        checkValidity(mso.validityInfo, signer: result.documentSigner, at: instant, into: &result.errors)

        // Issuer-signed elements: each digest over the IssuerSignedItemBytes as received.
        if let algorithm = DigestAlgorithm(rawValue: mso.digestAlgorithm) {
            for (namespace, items) in (document.issuerSigned.nameSpaces ?? [:]).sorted(by: { $0.key < $1.key }) {
                for item in items {
                    let element = item.value.elementIdentifier
                    guard let id = Int(exactly: item.value.digestID), let expected = mso.valueDigests[namespace]?[id] else {
                        result.errors.append(.digestMissing(namespace: namespace, element: element, digestID: item.value.digestID))
                        continue
                    }
                    // Over `24(h'…')` as the item arrived, hashed in two parts rather than copied into one.
                    let actual = algorithm.digest(tag24Embedding: item.bytes)
                    guard ConstantTime.equal(actual, expected) else {
                        result.errors.append(.digestMismatch(namespace: namespace, element: element))
                        continue
                    }
                    do {
                        try MDL.validate(namespace: namespace, element: element, value: item.value.elementValue)
                    } catch {
                        result.errors.append(error)
                        continue
                    }
                    if issuerAuthentic {
                        result.issuerSignedElements[namespace, default: [:]][element] = item.value.elementValue
                    }
                }
            }
        } else {
            result.errors.append(.unsupportedDigestAlgorithm(mso.digestAlgorithm))
        }

        // Device authentication: binds this response to this session and the MSO's device key.
        let deviceOK = verifyDeviceAuth(
            document, mso: mso, sessionTranscript: sessionTranscript, readerEphemeralKey: readerEphemeralKey,
            into: &result.errors)
        let deviceElements = document.deviceSigned.nameSpaces.value
        for (namespace, elements) in deviceElements.sorted(by: { $0.key < $1.key }) {
            for (element, value) in elements.sorted(by: { $0.key < $1.key }) {
                guard mso.deviceKeyInfo.keyAuthorizations?.allows(namespace: namespace, element: element) == true else {
                    result.errors.append(.deviceElementNotAuthorized(namespace: namespace, element: element))
                    continue
                }
                do {
                    try MDL.validate(namespace: namespace, element: element, value: value)
                } catch {
                    result.errors.append(error)
                    continue
                }
                if deviceOK { result.deviceSignedElements[namespace, default: [:]][element] = value }
            }
        }

        // What was asked for and not returned.
        for (namespace, element) in requested?.requestedElements ?? [] {
            let present = document.issuerSigned.nameSpaces?[namespace]?.contains { $0.value.elementIdentifier == element } == true
                || deviceElements[namespace]?[element] != nil
            if !present { result.errors.append(.requestedElementMissing(namespace: namespace, element: element)) }
        }
        return result
    }

    func checkValidity(_ validity: ValidityInfo, signer: Certificate?, at instant: Date, into errors: inout [MDocError]) {
        if instant < validity.validFrom.date {
            errors.append(.msoNotYetValid(validFrom: validity.validFrom.date, at: instant))
        }
        if instant > validity.validUntil.date {
            errors.append(.msoExpired(validUntil: validity.validUntil.date, at: instant))
        }
        if let signer, validity.signed.date < signer.notValidBefore || validity.signed.date > signer.notValidAfter {
            errors.append(.msoSignedOutsideCertificateValidity(signed: validity.signed.date))
        }
    }

    func verifyDeviceAuth(
        _ document: Document, mso: MobileSecurityObject, sessionTranscript: SessionTranscript,
        readerEphemeralKey: EphemeralPrivateKey?, into errors: inout [MDocError]
    ) -> Bool {
        let payload = DeviceAuthentication.bytes(
            sessionTranscript: sessionTranscript, docType: document.docType,
            deviceNameSpacesBytes: document.deviceSigned.nameSpaces.bytes)
        switch document.deviceSigned.deviceAuth {
        case .deviceSignature(let signature):
            do {
                try signature.verify(with: mso.deviceKeyInfo.deviceKey, detachedPayload: payload)
                return true
            } catch {
                errors.append(.deviceSignatureInvalid(docType: document.docType))
                return false
            }
        case .deviceMac(let mac):
            guard let readerEphemeralKey else {
                errors.append(.deviceMacKeyUnavailable(docType: document.docType))
                return false
            }
            do {
                let key = try EMacKey.derive(
                    readerKey: readerEphemeralKey, deviceKey: mso.deviceKeyInfo.deviceKey, sessionTranscript: sessionTranscript)
                try mac.verify(key: key, detachedPayload: payload)
                return true
            } catch {
                errors.append(.deviceMacInvalid(docType: document.docType))
                return false
            }
        }
    }

    /// The document signer's public key as a COSE verification key (EC P-256/384/521).
    static func verificationKey(_ certificate: Certificate) throws -> COSEVerificationKey {
        if let k = P256.Signing.PublicKey(certificate.publicKey) { return .p256(k) }
        if let k = P384.Signing.PublicKey(certificate.publicKey) { return .p384(k) }
        if let k = P521.Signing.PublicKey(certificate.publicKey) { return .p521(k) }
        throw MDocError.invalidStructure(structure: "document signer certificate", reason: "key is not EC P-256/384/521")
    }
}

