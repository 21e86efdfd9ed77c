import Crypto
import Foundation

/// The Concat KDF of NIST SP 800-56A §5.8.1 (single-step, SHA-256) as JWE uses it for ECDH-ES (RFC 7518 §4.6.2).
///
/// `OtherInfo = AlgorithmID || PartyUInfo || PartyVInfo || SuppPubInfo`, the first three each as a 32-bit
/// big-endian length followed by the bytes, `SuppPubInfo` the key length in bits as 32-bit big-endian, and
/// `SuppPrivInfo` empty. Round i hashes `counter(i) || Z || OtherInfo`; the key is the leftmost `keyBitLength` bits.
/// For direct key agreement `algorithmID` is the `enc` value; `apu` and `apv` are the base64url-decoded header
/// values (empty when absent).
public enum ConcatKDF {
    public static func derive(
        sharedSecret z: some ContiguousBytes, algorithmID: String, keyBitLength: Int, apu: Data, apv: Data
    ) -> SymmetricKey {
        let keyByteCount = max(0, keyBitLength) / 8
        var otherInfo = Data()
        otherInfo.reserveCapacity(16 + algorithmID.utf8.count + apu.count + apv.count)
        appendLengthPrefixed(Data(algorithmID.utf8), to: &otherInfo)
        appendLengthPrefixed(apu, to: &otherInfo)
        appendLengthPrefixed(apv, to: &otherInfo)
        appendUInt32(UInt32(truncatingIfNeeded: keyByteCount * 8), to: &otherInfo)

        var derived = Data()
        derived.reserveCapacity(keyByteCount + SHA256.byteCount)
        var counter: UInt32 = 1
        while derived.count < keyByteCount {
            var hasher = SHA256()
            var counterBytes = Data()
            appendUInt32(counter, to: &counterBytes)
            hasher.update(data: counterBytes)
            z.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            hasher.update(data: otherInfo)
            derived.append(contentsOf: hasher.finalize())
            counter &+= 1
        }
        let key = SymmetricKey(data: derived.prefix(keyByteCount))
        derived.resetBytes(in: derived.startIndex..<derived.endIndex)
        return key
    }

    private static func appendLengthPrefixed(_ bytes: Data, to out: inout Data) {
        appendUInt32(UInt32(truncatingIfNeeded: bytes.count), to: &out)
        out.append(bytes)
    }

    private static func appendUInt32(_ value: UInt32, to out: inout Data) {
        out.append(contentsOf: [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}
