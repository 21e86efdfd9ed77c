import Foundation
import TesseraCBOR

/// The structures that are signed or MACed (RFC 9052 §4.4, §6.3), encoded deterministically.
public enum COSEToBeSigned: Sendable {
    /// `Sig_structure` for COSE_Sign1 (RFC 9052 §4.4):
    /// `["Signature1", body_protected, external_aad, payload]`.
    ///
    /// `bodyProtected` must be the protected bstr content exactly as received.
    public static func signature1(bodyProtected: Data, externalAAD: Data, payload: Data) -> Data {
        CBOR.array([.text("Signature1"), .bytes(bodyProtected), .bytes(externalAAD), .bytes(payload)])
            .encoded(options: .deterministic)
    }

    /// `MAC_structure` for COSE_Mac0 (RFC 9052 §6.3):
    /// `["MAC0", protected, external_aad, payload]`.
    ///
    /// `protected` must be the protected bstr content exactly as received.
    public static func mac0(protected: Data, externalAAD: Data, payload: Data) -> Data {
        CBOR.array([.text("MAC0"), .bytes(protected), .bytes(externalAAD), .bytes(payload)])
            .encoded(options: .deterministic)
    }

    /// The payload to authenticate: the attached one, or the detached one supplied by the caller
    /// (RFC 9052 §2). Supplying both is an error, as is supplying neither.
    static func resolvePayload(attached: Data?, detached: Data?) throws(COSEError) -> Data {
        switch (attached, detached) {
        case (let a?, nil): return a
        case (nil, let d?): return d
        case (nil, nil): throw .detachedPayloadRequired
        case (.some, .some): throw .payloadNotDetached
        }
    }
}
