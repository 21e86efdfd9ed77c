import Crypto
import Foundation
import TesseraCBOR

/// `SessionTranscript = [DeviceEngagementBytes / null, EReaderKeyBytes / null, Handover]` (§9.1.5.1).
///
/// Both parties must hash the same bytes: the transcript is encoded once, from the engagement
/// and reader key bytes exactly as exchanged, and only those bytes are used afterwards — for the
/// session keys, DeviceAuthentication and ReaderAuthentication.
public struct SessionTranscript: Sendable, Equatable {
    /// DeviceEngagementBytes content (the DeviceEngagement as exchanged), or nil (e.g. OpenID4VP).
    public let deviceEngagementBytes: Data?
    /// EReaderKeyBytes content (the reader's ephemeral COSE_Key as exchanged), or nil.
    public let eReaderKeyBytes: Data?
    /// How the engagement reached the reader: QR, NFC, or another handover such as OpenID4VP's.
    public let handover: Handover
    /// The encoding of the SessionTranscript array.
    public let bytes: Data

    /// Builds and encodes the transcript once from the bytes as exchanged; use `bytes` from then on.
    public init(deviceEngagementBytes: Data?, eReaderKeyBytes: Data?, handover: Handover) {
        self.deviceEngagementBytes = deviceEngagementBytes
        self.eReaderKeyBytes = eReaderKeyBytes
        self.handover = handover
        let item: CBOR = [
            deviceEngagementBytes.map { .tagged(CBORTag.encodedCBOR, .bytes($0)) } ?? .null,
            eReaderKeyBytes.map { .tagged(CBORTag.encodedCBOR, .bytes($0)) } ?? .null,
            handover.cbor,
        ]
        self.bytes = item.encoded()
    }

    /// Reads a transcript from the encoding of its array, keeping those bytes.
    public init(bytes: Data) throws(MDocError) {
        func fail(_ r: String) -> MDocError { .invalidStructure(structure: "SessionTranscript", reason: r) }
        let item: CBOR
        do {
            item = try CBOR.decode(bytes)
        } catch {
            throw .malformed(structure: "SessionTranscript", error)
        }
        guard case .array(let a) = item, a.count == 3 else { throw fail("must be a 3-element array") }
        func embedded(_ i: CBOR, _ name: String) throws(MDocError) -> Data? {
            switch i {
            case .null: return nil
            case .tagged(CBORTag.encodedCBOR, .bytes(let b)): return b
            default: throw fail("\(name) must be #6.24(bstr) or null")
            }
        }
        self.deviceEngagementBytes = try embedded(a[0], "DeviceEngagementBytes")
        self.eReaderKeyBytes = try embedded(a[1], "EReaderKeyBytes")
        self.handover = Handover(cbor: a[2])
        self.bytes = bytes
    }

    /// Reads `SessionTranscriptBytes = #6.24(bstr .cbor SessionTranscript)`.
    public init(taggedBytes: Data) throws(MDocError) {
        guard case .tagged(CBORTag.encodedCBOR, .bytes(let inner))? = try? CBOR.decode(taggedBytes) else {
            throw .invalidStructure(structure: "SessionTranscriptBytes", reason: "must be #6.24(bstr)")
        }
        try self.init(bytes: inner)
    }

    /// `SessionTranscriptBytes = #6.24(bstr .cbor SessionTranscript)`: what the HKDF salt hashes (§9.1.5.1).
    public var taggedBytes: Data { CBOR.encodeTag24(bytes) }

    /// SHA-256(SessionTranscriptBytes), the HKDF salt of the session keys and EMacKey (§9.1.1.5, §9.1.3.5),
    /// hashed from the tag heads and the transcript bytes without building SessionTranscriptBytes.
    var sessionKeySalt: Data {
        var hasher = SHA256()
        CBOR.tag24Prefix(byteCount: bytes.count).withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(data: bytes)
        return Data(hasher.finalize())
    }
}
