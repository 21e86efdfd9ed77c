import Foundation
import TesseraCBOR
import TesseraCOSE
import TesseraTrust

/// Everything that can go wrong in the mdoc layer. Each case names the ISO/IEC 18013-5:2021
/// rule broken; verification collects several of them in one `MDocVerificationOutcome`.
public enum MDocError: Error, Equatable, Sendable {
    // Structure (§8, §9).
    /// Bytes that are not the named structure: the CBOR error says what and where.
    case malformed(structure: String, CBORError)
    /// A structure whose fields are present but break a rule (message says which).
    case invalidStructure(structure: String, reason: String)
    /// A COSE object inside the structure is not usable.
    case cose(structure: String, COSEError)
    /// Version other than "1.x" (§8.3.2.1.2.1).
    case unsupportedVersion(structure: String, version: String)

    // Session encryption (§9.1.1).
    /// Only cipher suite 1 is defined (§9.1.5.2).
    case unsupportedCipherSuite(Int)
    /// An ephemeral key on a curve the cipher suite does not allow, or unusable.
    case invalidEphemeralKey(String)
    /// AES-GCM open failed: the peer ends the session with status 10 (§9.1.1.5).
    case sessionDecryptionFailed
    /// The 4-byte message counter would wrap (§9.1.1.5: a counter is never reused).
    case sessionCounterExhausted
    /// SessionData carried a status instead of data (§8.3.2.1.2.3).
    case sessionStatus(UInt64)

    // Holder response generation (§8.3.2.1.2.2).
    /// The device key could not sign or MAC.
    case deviceKeyFailure(String)

    // Verification (§9.1.2–9.1.4, §9.3.1).
    /// The issuer's COSE_Sign1 over the MSO does not verify with the document signer key.
    case issuerSignatureInvalid(docType: String)
    /// The document signer certificate chain breaks an Annex B rule or does not lead to a trusted IACA.
    case documentSignerChainInvalid(docType: String, TrustError)
    /// The issuerAuth carries no x5chain (§9.1.2.4).
    case documentSignerCertificateMissing(docType: String)
    /// docType differs between request, Document and MSO (§9.3.1).
    case docTypeMismatch(expected: String, found: String, source: String)
    /// An element's digest over its received IssuerSignedItemBytes differs from the MSO (§9.3.1).
    case digestMismatch(namespace: String, element: String)
    /// The MSO has no digest for a presented element's digestID.
    case digestMissing(namespace: String, element: String, digestID: UInt64)
    /// digestAlgorithm other than SHA-256/384/512 (§9.1.2.5).
    case unsupportedDigestAlgorithm(String)
    /// The MSO is not valid yet at the verification instant (§9.3.1 validityInfo).
    case msoNotYetValid(validFrom: Date, at: Date)
    /// The MSO has expired at the verification instant.
    case msoExpired(validUntil: Date, at: Date)
    /// The MSO's validity window is not inside the document signer certificate's (§9.3.1).
    case msoSignedOutsideCertificateValidity(signed: Date)
    /// DeviceSigned is neither authenticated nor bound to the MSO device key (§9.1.3).
    case deviceSignatureInvalid(docType: String)
    /// DeviceMac does not verify with EMacKey from the reader's ephemeral key and the MSO device key (§9.1.3.5).
    case deviceMacInvalid(docType: String)
    /// DeviceMac needs the reader's ephemeral private key, which was not supplied.
    case deviceMacKeyUnavailable(docType: String)
    /// A device-signed element that keyAuthorizations does not allow (§9.1.2.4).
    case deviceElementNotAuthorized(namespace: String, element: String)
    /// A requested element is absent from the response (§8.3.2.1.2.2: absence is allowed, but the reader asked).
    case requestedElementMissing(namespace: String, element: String)
    /// A requested document was not returned.
    case requestedDocumentMissing(docType: String)
    /// The holder reported an error for a document (documentErrors).
    case documentError(docType: String, code: Int)
    /// ReaderAuth does not verify (§9.1.4).
    case readerAuthInvalid(reason: String)
    /// The reader certificate chain breaks an Annex B rule or does not lead to a trusted reader root.
    case readerChainInvalid(TrustError)
    /// An element value does not have the type the namespace defines (§7.2.1).
    case invalidElementValue(namespace: String, element: String, expected: String)

    /// A failure that says something asked for was not returned, not that something returned is false.
    public var isCompletenessFailure: Bool {
        switch self {
        case .requestedElementMissing, .requestedDocumentMissing, .documentError: return true
        default: return false
        }
    }

    /// A short stable identifier for scripts (`tessera mdoc verify --json`).
    public var code: String {
        switch self {
        case .malformed: return "malformed"
        case .invalidStructure: return "invalid_structure"
        case .cose: return "cose_error"
        case .unsupportedVersion: return "unsupported_version"
        case .unsupportedCipherSuite: return "unsupported_cipher_suite"
        case .invalidEphemeralKey: return "invalid_ephemeral_key"
        case .sessionDecryptionFailed: return "session_decryption_failed"
        case .sessionCounterExhausted: return "session_counter_exhausted"
        case .sessionStatus: return "session_status"
        case .deviceKeyFailure: return "device_key_failure"
        case .issuerSignatureInvalid: return "issuer_signature_invalid"
        case .documentSignerChainInvalid: return "document_signer_chain_invalid"
        case .documentSignerCertificateMissing: return "document_signer_certificate_missing"
        case .docTypeMismatch: return "doctype_mismatch"
        case .digestMismatch: return "digest_mismatch"
        case .digestMissing: return "digest_missing"
        case .unsupportedDigestAlgorithm: return "unsupported_digest_algorithm"
        case .msoNotYetValid: return "mso_not_yet_valid"
        case .msoExpired: return "mso_expired"
        case .msoSignedOutsideCertificateValidity: return "mso_signed_outside_certificate_validity"
        case .deviceSignatureInvalid: return "device_signature_invalid"
        case .deviceMacInvalid: return "device_mac_invalid"
        case .deviceMacKeyUnavailable: return "device_mac_key_unavailable"
        case .deviceElementNotAuthorized: return "device_element_not_authorized"
        case .requestedElementMissing: return "requested_element_missing"
        case .requestedDocumentMissing: return "requested_document_missing"
        case .documentError: return "document_error"
        case .readerAuthInvalid: return "reader_auth_invalid"
        case .readerChainInvalid: return "reader_chain_invalid"
        case .invalidElementValue: return "invalid_element_value"
        }
    }
}

extension MDocError: CustomStringConvertible {
    /// The failure in one line, with the section it breaks where there is one.
    public var description: String {
        switch self {
        case .malformed(let s, let e): return "\(s) is not well formed: \(e)"
        case .invalidStructure(let s, let r): return "\(s): \(r)"
        case .cose(let s, let e): return "\(s): \(e)"
        case .unsupportedVersion(let s, let v): return "\(s) version \"\(v)\" is not supported"
        case .unsupportedCipherSuite(let c): return "cipher suite \(c) is not supported (§9.1.5.2 defines 1)"
        case .invalidEphemeralKey(let r): return "ephemeral key unusable: \(r)"
        case .sessionDecryptionFailed: return "session message could not be decrypted (§9.1.1.5; status 10)"
        case .sessionCounterExhausted: return "session message counter exhausted (§9.1.1.5)"
        case .sessionStatus(let s): return "session ended with status \(s)"
        case .deviceKeyFailure(let r): return "device key failed: \(r)"
        case .issuerSignatureInvalid(let d): return "\(d): issuerAuth signature does not verify (§9.1.2.4)"
        case .documentSignerChainInvalid(let d, let e): return "\(d): document signer chain: \(e)"
        case .documentSignerCertificateMissing(let d): return "\(d): issuerAuth has no x5chain (§9.1.2.4)"
        case .docTypeMismatch(let e, let f, let s): return "docType \"\(f)\" in \(s) differs from \"\(e)\" (§9.3.1)"
        case .digestMismatch(let n, let e): return "\(n)/\(e): digest does not match the MSO (§9.3.1)"
        case .digestMissing(let n, let e, let i): return "\(n)/\(e): the MSO has no digest \(i) (§9.3.1)"
        case .unsupportedDigestAlgorithm(let a): return "digest algorithm \"\(a)\" is not supported (§9.1.2.5)"
        case .msoNotYetValid(let f, let at): return "MSO valid from \(f), not yet at \(at) (§9.3.1)"
        case .msoExpired(let u, let at): return "MSO expired at \(u), checked at \(at) (§9.3.1)"
        case .msoSignedOutsideCertificateValidity(let s):
            return "MSO signed at \(s), outside the document signer certificate validity (§9.3.1)"
        case .deviceSignatureInvalid(let d): return "\(d): DeviceSignature does not verify with the MSO device key (§9.1.3)"
        case .deviceMacInvalid(let d): return "\(d): DeviceMac does not verify (§9.1.3.5)"
        case .deviceMacKeyUnavailable(let d): return "\(d): DeviceMac needs the reader's ephemeral key"
        case .deviceElementNotAuthorized(let n, let e): return "\(n)/\(e): device-signed but not authorized (§9.1.2.4)"
        case .requestedElementMissing(let n, let e): return "\(n)/\(e): requested but not returned"
        case .requestedDocumentMissing(let d): return "\(d): requested but not returned"
        case .documentError(let d, let c): return "\(d): holder returned error code \(c)"
        case .readerAuthInvalid(let r): return "reader authentication failed: \(r) (§9.1.4)"
        case .readerChainInvalid(let e): return "reader certificate chain: \(e)"
        case .invalidElementValue(let n, let e, let t): return "\(n)/\(e): value is not \(t) (§7.2.1)"
        }
    }
}

// Structures are decoded without Codable: `readStructure` in Decoding/ReadFailure.swift.

/// Encodes `value` deterministically (§8.3.2.1: CBOR as RFC 8949 §4.2.1 recommends).
func encodeStructure<T: Encodable>(_ value: T, _ name: String) throws(MDocError) -> Data {
    do {
        return try CBOREncoder().encode(value)
    } catch {
        throw .invalidStructure(structure: name, reason: "cannot be encoded: \(error)")
    }
}
