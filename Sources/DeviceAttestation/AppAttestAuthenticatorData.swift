import Foundation
import TesseraCBOR

/// Authenticator data as App Attest produces it (the WebAuthn layout, W3C Web Authentication §6.1):
/// rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ [attested credential data: aaguid (16) ‖
/// credentialIdLength (2) ‖ credentialId ‖ credentialPublicKey (COSE_Key, CBOR)] ‖ [extensions (CBOR)].
///
/// The bytes are kept as received: they are hashed into the nonce.
///
/// Assertions carry no attested credential data although App Attest sets the AT flag (0x40) in them, so the flag
/// is only honoured when reading an attestation.
///
/// Extensions: with the ED flag (0x80) they follow as WebAuthn says; since iOS 27 Apple appends its extensions map
/// without setting the flag (`AppAttestExtensions.Encoding.appleUnflagged`). Anything after the fields that is not
/// exactly one CBOR map is refused (`trailing bytes`).
struct AppAttestAuthenticatorData: Sendable {
    enum Kind {
        case attestation
        case assertion
    }

    struct AttestedCredential: Sendable {
        let aaguid: Data
        let credentialID: Data
        let credentialPublicKey: CBOR
    }

    let bytes: Data
    let rpIDHash: Data
    let flags: UInt8
    let counter: UInt32
    let attestedCredential: AttestedCredential?
    let extensions: AppAttestExtensions?

    private static let attestedCredentialFlag: UInt8 = 0x40
    private static let extensionsFlag: UInt8 = 0x80

    init(_ bytes: Data, _ kind: Kind) throws(AttestationParseError) {
        var reader = ByteReader(Data(bytes))  // rebased copy, so offsets start at 0
        self.bytes = bytes
        rpIDHash = try reader.take(32, "rpIdHash")
        flags = try reader.take(1, "flags").reduce(0) { $0 << 8 | $1 }
        counter = try reader.take(4, "signCount").reduce(0) { $0 << 8 | UInt32($1) }
        if kind == .attestation, flags & Self.attestedCredentialFlag != 0 {
            let aaguid = try reader.take(16, "aaguid")
            let length = try reader.take(2, "credentialIdLength").reduce(0) { $0 << 8 | Int($1) }
            let credentialID = try reader.take(length, "credentialId")
            let key = try reader.cbor("credentialPublicKey")
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, credentialPublicKey: key)
        } else {
            attestedCredential = nil
        }
        if flags & Self.extensionsFlag != 0 {
            extensions = try AppAttestExtensions(try reader.cbor("extensions"), encoding: .webAuthnFlagged)
        } else if !reader.isAtEnd, reader.nextIsMap {
            extensions = try AppAttestExtensions(try reader.cbor("extensions"), encoding: .appleUnflagged)
        } else {
            extensions = nil
        }
        guard reader.isAtEnd else { throw AttestationParseError("authenticator data has trailing bytes") }
    }
}

/// Reads fields off the front of a byte buffer, failing instead of reading past its end.
private struct ByteReader {
    private let data: Data
    private var offset = 0

    init(_ data: Data) { self.data = data }

    var isAtEnd: Bool { offset == data.count }

    /// Whether the next byte starts a CBOR map (major type 5).
    var nextIsMap: Bool { offset < data.count && data[offset] >> 5 == 5 }

    mutating func take(_ count: Int, _ name: String) throws(AttestationParseError) -> Data {
        guard count >= 0, data.count - offset >= count else {
            throw AttestationParseError("authenticator data is too short for \(name)")
        }
        defer { offset += count }
        return data.subdata(in: offset..<offset + count)
    }

    mutating func cbor(_ name: String) throws(AttestationParseError) -> CBOR {
        let rest = data.subdata(in: offset..<data.count)
        do {
            let (value, length) = try CBOR.decodePrefix(rest, options: AppAttestCBOR.options)
            offset += length
            return value
        } catch {
            throw AttestationParseError("\(name) is not CBOR: \(error)")
        }
    }
}
