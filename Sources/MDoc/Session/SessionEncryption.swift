import Crypto
import Foundation
import TesseraCOSE

/// Which side of the session this is.
public enum MDocRole: Sendable {
    /// The holder's device ("mdoc").
    case mdoc
    /// The verifier ("mdoc reader").
    case mdocReader
}

/// Session encryption (ISO/IEC 18013-5:2021 §9.1.1.5) for either role.
///
/// `SKReader`/`SKDevice` = HKDF-SHA-256(ECDH(own ephemeral, peer ephemeral),
/// salt = SHA-256(SessionTranscriptBytes), info "SKReader"/"SKDevice", 32 bytes), derived once.
/// AES-256-GCM with IV = 8-byte identifier (reader 0…0, mdoc 0…01) ‖ 4-byte big-endian counter
/// starting at 1, one counter per direction; no AAD. A counter is never reused, and a
/// message that does not decrypt is `MDocError.sessionDecryptionFailed` (status 10).
///
/// A class, not a struct: a copy would duplicate the counters. The keys live in swift-crypto
/// `SymmetricKey` storage, which is zeroed when released.
public final class SessionEncryption {
    /// The side this object encrypts for; it picks the send and receive keys and the IV identifiers.
    public let role: MDocRole
    private let sendKey: SymmetricKey
    private let receiveKey: SymmetricKey
    private var sendCounter: UInt32 = 0
    private var receiveCounter: UInt32 = 0

    /// Derives both session keys.
    public init(
        role: MDocRole, privateKey: EphemeralPrivateKey, peerPublicKey: COSEKey, sessionTranscript: SessionTranscript
    ) throws(MDocError) {
        let shared = try privateKey.sharedSecret(with: peerPublicKey)
        let salt = sessionTranscript.sessionKeySalt
        func derive(_ info: String) -> SymmetricKey {
            shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data(info.utf8), outputByteCount: 32)
        }
        let skReader = derive("SKReader")
        let skDevice = derive("SKDevice")
        self.role = role
        switch role {
        case .mdoc:
            sendKey = skDevice
            receiveKey = skReader
        case .mdocReader:
            sendKey = skReader
            receiveKey = skDevice
        }
    }

    /// Encrypts the next outgoing message.
    public func encrypt(_ plaintext: Data) throws(MDocError) -> Data {
        guard sendCounter < UInt32.max else { throw .sessionCounterExhausted }
        sendCounter += 1
        let nonce = try Self.nonce(identifier: role == .mdoc ? 1 : 0, counter: sendCounter)
        do {
            let box = try AES.GCM.seal(plaintext, using: sendKey, nonce: nonce)
            // ciphertext ‖ tag is the combined form without its 12-byte IV: one copy, not two.
            guard let combined = box.combined else { return box.ciphertext + box.tag }
            return Data(combined.dropFirst(12))
        } catch {
            throw .sessionDecryptionFailed
        }
    }

    /// Decrypts the next incoming message (messages arrive in order on every transport).
    public func decrypt(_ message: Data) throws(MDocError) -> Data {
        guard receiveCounter < UInt32.max else { throw .sessionCounterExhausted }
        guard message.count >= 16 else { throw .sessionDecryptionFailed }
        let counter = receiveCounter + 1
        let nonce = try Self.nonce(identifier: role == .mdoc ? 0 : 1, counter: counter)
        do {
            let box = try AES.GCM.SealedBox(
                nonce: nonce, ciphertext: message.dropLast(16), tag: message.suffix(16))
            let plaintext = try AES.GCM.open(box, using: receiveKey)
            receiveCounter = counter
            return plaintext
        } catch {
            throw .sessionDecryptionFailed
        }
    }

    /// 8-byte identifier ‖ 4-byte big-endian counter (§9.1.1.5).
    static func nonce(identifier: UInt64, counter: UInt32) throws(MDocError) -> AES.GCM.Nonce {
        // Built on the stack: 12 bytes do not need a heap buffer.
        let iv = (identifier.bigEndian, counter.bigEndian)
        do {
            return try withUnsafeBytes(of: iv) { raw in try AES.GCM.Nonce(data: raw) }
        } catch {
            throw .invalidStructure(structure: "session IV", reason: "\(error)")
        }
    }
}

/// EMacKey for DeviceMac (§9.1.3.5): HKDF-SHA-256(ECDH(SDeviceKey, EReaderKey),
/// salt = SHA-256(SessionTranscriptBytes), info "EMacKey", 32 bytes). The mdoc computes it with its
/// static device key and the reader's ephemeral public key; the reader with its ephemeral private
/// key and the device key from the MSO.
public enum EMacKey {
    /// EMacKey from an ECDH result already computed (the mdoc's side, where the device key
    /// agrees through `DeviceKeySigner.sharedSecret(with:)`).
    public static func derive(sharedSecret: SharedSecret, sessionTranscript: SessionTranscript) -> SymmetricKey {
        let salt = sessionTranscript.sessionKeySalt
        return sharedSecret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: salt, sharedInfo: Data("EMacKey".utf8), outputByteCount: 32)
    }

    /// The reader's side: its ephemeral private key and the mdoc's static device key.
    public static func derive(
        readerKey: EphemeralPrivateKey, deviceKey: COSEKey, sessionTranscript: SessionTranscript
    ) throws(MDocError) -> SymmetricKey {
        derive(sharedSecret: try readerKey.sharedSecret(with: deviceKey), sessionTranscript: sessionTranscript)
    }
}
