import Foundation
import TesseraCBOR

extension COSESign1 {
    /// Signs `payload` (RFC 9052 §4.4).
    ///
    /// `alg` is put in the protected bucket: the key's algorithm is added if `protected` has
    /// none, and one that differs from it is `COSEError.algorithmMismatch`. The protected bucket
    /// is encoded deterministically once and those bytes are signed and kept. With `detached`
    /// the message carries nil and the payload travels separately (RFC 9052 §2).
    public static func sign(
        payload: Data,
        with key: COSESigningKey,
        protected: COSEHeaders = COSEHeaders(),
        unprotected: COSEHeaders = COSEHeaders(),
        externalAAD: Data = Data(),
        detached: Bool = false
    ) throws(COSEError) -> COSESign1 {
        var protectedHeaders = protected
        if let alg = try protected.algorithm {
            guard alg == key.algorithm else { throw .algorithmMismatch(alg, key: key.curve.name) }
        } else {
            protectedHeaders.setAlgorithm(key.algorithm)
        }
        let header = COSEProtectedHeader(protectedHeaders)
        try COSEMessageParts.checkBuckets(header.headers, unprotected)
        let toBeSigned = COSEToBeSigned.signature1(bodyProtected: header.rawBytes, externalAAD: externalAAD, payload: payload)
        let signature = try key.sign(toBeSigned)
        return try COSESign1(protected: header, unprotected: unprotected, payload: detached ? nil : payload, signature: signature)
    }

    /// Signs with a COSE_Key that holds a private EC2 or OKP key; the key's `alg`, if any,
    /// must be the algorithm of its curve.
    public static func sign(
        payload: Data,
        with key: COSEKey,
        protected: COSEHeaders = COSEHeaders(),
        unprotected: COSEHeaders = COSEHeaders(),
        externalAAD: Data = Data(),
        detached: Bool = false
    ) throws(COSEError) -> COSESign1 {
        try sign(
            payload: payload, with: COSESigningKey(key), protected: protected, unprotected: unprotected,
            externalAAD: externalAAD, detached: detached)
    }

    /// Verifies the signature (RFC 9052 §4.4) with a public key the caller trusts.
    ///
    /// Checks, in order: `alg` is present where `options` requires (by default the protected
    /// bucket) and supported; `crit` names only understood labels; the payload is attached or
    /// supplied as `detachedPayload` (not both); `alg` is the one algorithm of the key's curve
    /// (ES512 with a P-256 key is rejected); the signature has the exact `r‖s` length (a DER
    /// signature is `COSEError.derSignatureRejected`); and the signature verifies over
    /// `Sig_structure` built from the protected bytes as received.
    ///
    /// The key is not taken from `x5chain`: the caller validates the chain and passes its leaf key.
    public func verify(
        with key: COSEVerificationKey,
        externalAAD: Data = Data(),
        detachedPayload: Data? = nil,
        options: COSEVerificationOptions = .strict
    ) throws(COSEError) {
        let alg = try algorithm(options: options)
        try options.checkCritical(protected.headers)
        let toBeSigned = try toBeSigned(externalAAD: externalAAD, detachedPayload: detachedPayload)
        try key.verify(signature, for: toBeSigned, algorithm: alg)
    }

    /// Verifies with the public part of a COSE_Key; the key's `alg`, if any, must match the message's.
    public func verify(
        with key: COSEKey,
        externalAAD: Data = Data(),
        detachedPayload: Data? = nil,
        options: COSEVerificationOptions = .strict
    ) throws(COSEError) {
        let verificationKey = try COSEVerificationKey(key)
        if let keyAlg = key.algorithm {
            let alg = try algorithm(options: options)
            guard keyAlg == alg else { throw .algorithmMismatch(alg, key: "\(verificationKey.curve.name) (alg \(keyAlg.name))") }
        }
        try verify(with: verificationKey, externalAAD: externalAAD, detachedPayload: detachedPayload, options: options)
    }
}
