import Foundation
import TesseraCBOR

/// The structures that are signed or MACed (RFC 9052 §4.4, §6.3), encoded deterministically.
public enum COSEToBeSigned: Sendable {
    /// `Sig_structure` for COSE_Sign1 (RFC 9052 §4.4):
    /// `["Signature1", body_protected, external_aad, payload]`.
    ///
    /// `bodyProtected` must be the protected bstr content exactly as received.
    public static func signature1(bodyProtected: Data, externalAAD: Data, payload: Data) -> Data {
        structure("Signature1", bodyProtected, externalAAD, payload)
    }

    /// `MAC_structure` for COSE_Mac0 (RFC 9052 §6.3):
    /// `["MAC0", protected, external_aad, payload]`.
    ///
    /// `protected` must be the protected bstr content exactly as received.
    public static func mac0(protected: Data, externalAAD: Data, payload: Data) -> Data {
        structure("MAC0", protected, externalAAD, payload)
    }

    /// `[context, protected, external_aad, payload]` written straight into one buffer: the bytes of that array's
    /// deterministic encoding, with the payload copied once.
    static func structure(_ context: String, _ protected: Data, _ externalAAD: Data, _ payload: Data) -> Data {
        // An array head, a text head (one byte for these contexts), three byte-string heads of at most 9 bytes.
        let contents: Int = context.utf8.count + protected.count + externalAAD.count + payload.count
        var writer = CBORStreamWriter(capacity: 2 + 3 * 9 + contents)
        writer.writeArrayHead(count: 4)
        writer.writeText(context)
        writer.writeBytes(protected)
        writer.writeBytes(externalAAD)
        writer.writeBytes(payload)
        return writer.data
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
