import Crypto
import Foundation
import TesseraCBOR

extension COSEMac0 {
    /// Shortest HMAC 256/256 key accepted: the hash output length (RFC 2104 §3 strongly
    /// discourages shorter keys). This is a Tessera policy, applied when creating and verifying.
    public static let minimumKeyLength = 32

    /// Creates a COSE_Mac0 with HMAC 256/256 (RFC 9052 §6.3, RFC 9053 §3.1): the full 32-byte
    /// HMAC-SHA-256 over `MAC_structure`.
    ///
    /// `alg` 5 is put in the protected bucket if `protected` has none; any other `alg` is
    /// `COSEError.algorithmMismatch`. The protected bucket is encoded deterministically once and
    /// those bytes are MACed and kept. With `detached` the message carries nil.
    public static func create(
        payload: Data,
        key: SymmetricKey,
        protected: COSEHeaders = COSEHeaders(),
        unprotected: COSEHeaders = COSEHeaders(),
        externalAAD: Data = Data(),
        detached: Bool = false
    ) throws(COSEError) -> COSEMac0 {
        try checkKey(key)
        var protectedHeaders = protected
        if let alg = try protected.algorithm {
            guard alg == .hmac256 else { throw .algorithmMismatch(alg, key: "symmetric") }
        } else {
            protectedHeaders.setAlgorithm(.hmac256)
        }
        let header = COSEProtectedHeader(protectedHeaders)
        try COSEMessageParts.checkBuckets(header.headers, unprotected)
        let toBeMACed = COSEToBeSigned.mac0(protected: header.rawBytes, externalAAD: externalAAD, payload: payload)
        let tag = Data(HMAC<SHA256>.authenticationCode(for: toBeMACed, using: key))
        return try COSEMac0(protected: header, unprotected: unprotected, payload: detached ? nil : payload, tag: tag)
    }

    /// Creates a COSE_Mac0 with a Symmetric COSE_Key; the key's `alg`, if any, must be HMAC 256/256.
    public static func create(
        payload: Data,
        key: COSEKey,
        protected: COSEHeaders = COSEHeaders(),
        unprotected: COSEHeaders = COSEHeaders(),
        externalAAD: Data = Data(),
        detached: Bool = false
    ) throws(COSEError) -> COSEMac0 {
        try create(
            payload: payload, key: SymmetricKey(coseKey: key), protected: protected, unprotected: unprotected,
            externalAAD: externalAAD, detached: detached)
    }

    /// Verifies the tag (RFC 9052 §6.3) in constant time.
    ///
    /// Checks, in order: `alg` is present where `options` requires (by default the protected
    /// bucket) and is HMAC 256/256; `crit` names only understood labels; the key is at least
    /// `minimumKeyLength` bytes; the payload is attached or supplied as `detachedPayload` (not
    /// both); and the tag equals HMAC-SHA-256 over `MAC_structure` built from the protected bytes
    /// as received.
    public func verify(
        key: SymmetricKey,
        externalAAD: Data = Data(),
        detachedPayload: Data? = nil,
        options: COSEVerificationOptions = .strict
    ) throws(COSEError) {
        let alg = try algorithm(options: options)
        guard alg == .hmac256 else { throw .algorithmMismatch(alg, key: "symmetric") }
        try options.checkCritical(protected.headers)
        try Self.checkKey(key)
        let toBeMACed = try toBeMACed(externalAAD: externalAAD, detachedPayload: detachedPayload)
        guard tag.count == COSEAlgorithm.hmac256.outputLength,
            HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: toBeMACed, using: key)
        else { throw .macInvalid }
    }

    /// Verifies with a Symmetric COSE_Key; the key's `alg`, if any, must be HMAC 256/256.
    public func verify(
        key: COSEKey,
        externalAAD: Data = Data(),
        detachedPayload: Data? = nil,
        options: COSEVerificationOptions = .strict
    ) throws(COSEError) {
        if let keyAlg = key.algorithm, keyAlg != .hmac256 { throw .algorithmMismatch(keyAlg, key: "symmetric") }
        try verify(key: SymmetricKey(coseKey: key), externalAAD: externalAAD, detachedPayload: detachedPayload, options: options)
    }

    static func checkKey(_ key: SymmetricKey) throws(COSEError) {
        guard key.bitCount >= minimumKeyLength * 8 else {
            throw .invalidKey("HMAC 256/256 keys must be at least \(minimumKeyLength) bytes")
        }
    }
}
