import Foundation

/// An encoded CBOR data item carried in a byte string under tag 24 (RFC 8949 §3.4.5.1),
/// as ISO 18013-5 uses for `IssuerSignedItemBytes`, `MobileSecurityObjectBytes`,
/// `DeviceEngagementBytes` and the SessionTranscript.
///
/// It keeps the exact bytes it was decoded from next to the decoded value, and
/// re-emits those bytes unchanged: digests, signatures and transcripts are computed
/// over what was received, never over a re-encoding (ARCHITECTURE.md decision 1).
public struct EncodedCBOR<Value> {
    /// The embedded item's bytes, exactly as received or as encoded once when built.
    public let bytes: Data
    /// The decoded item.
    public let value: Value

    /// `bytes` and the value read from them (the readers below make sure of that).
    @usableFromInline init(bytes: Data, value: Value) {
        self.bytes = bytes
        self.value = value
    }

    /// `24(h'…')`, the wire form of this item.
    public var cbor: CBOR { .tagged(CBORTag.encodedCBOR, .bytes(bytes)) }
}

extension EncodedCBOR where Value: Decodable {
    /// Decodes `bytes` and keeps them.
    public init(bytes: Data, options: CBORDecodingOptions = .strict) throws {
        self.bytes = bytes
        self.value = try CBORDecoder(options: options).decode(Value.self, from: bytes)
    }

    /// Reads `24(h'…')`.
    public init(tagged item: CBOR, options: CBORDecodingOptions = .strict) throws {
        guard case .tagged(CBORTag.encodedCBOR, .bytes(let inner)) = item else {
            throw CBORError.typeMismatch(expected: "tag 24 byte string", found: item.kindName, path: "", offset: nil)
        }
        try self.init(bytes: inner, options: options)
    }
}

extension EncodedCBOR {
    /// Decodes `bytes` strictly and builds the value from the decoded item with `read`, keeping the bytes: the
    /// path for structures read without Codable. A decoding failure is turned into `E` by `malformed`.
    public static func decode<E: Error>(
        _ bytes: Data, options: CBORDecodingOptions = .strict, malformed: (CBORError) -> E,
        reading read: (CBOR) throws(E) -> Value
    ) throws(E) -> EncodedCBOR {
        let item: CBOR
        do {
            item = try CBOR.decode(bytes, options: options)
        } catch {
            throw malformed(error)
        }
        // The memberwise initializer (internal): bytes and the value read from their own decoding.
        return EncodedCBOR(bytes: bytes, value: try read(item))
    }

    /// Keeps `bytes` with the value `read` builds from exactly those bytes by its own means (a structure reader that
    /// does not go through a decoded tree); nil when `read` gives up.
    @inlinable
    public static func read(_ bytes: Data, _ read: (Data) -> Value?) -> EncodedCBOR? {
        guard let value = read(bytes) else { return nil }
        return EncodedCBOR(bytes: bytes, value: value)
    }

    /// Reads `24(h'…')` like `decode(_:options:malformed:reading:)`; an item of another kind is `malformed` with
    /// `CBORError.typeMismatch`.
    public static func decode<E: Error>(
        tagged item: CBOR, options: CBORDecodingOptions = .strict, malformed: (CBORError) -> E,
        reading read: (CBOR) throws(E) -> Value
    ) throws(E) -> EncodedCBOR {
        guard case .tagged(CBORTag.encodedCBOR, .bytes(let inner)) = item else {
            throw malformed(.typeMismatch(expected: "tag 24 byte string", found: item.kindName, path: "", offset: nil))
        }
        return try decode(inner, options: options, malformed: malformed, reading: read)
    }
}

extension EncodedCBOR where Value: Encodable {
    /// Encodes `value` once (deterministically by default) and keeps those bytes.
    public init(encoding value: Value, encoder: CBOREncoder = CBOREncoder()) throws {
        self.value = value
        self.bytes = try encoder.encode(value)
    }
}

extension EncodedCBOR: Sendable where Value: Sendable {}

extension EncodedCBOR: Equatable {
    /// Two items are equal when their bytes are: the bytes are what is signed.
    public static func == (lhs: EncodedCBOR, rhs: EncodedCBOR) -> Bool { lhs.bytes == rhs.bytes }
}

extension EncodedCBOR: Hashable {
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

extension EncodedCBOR: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(cbor)
    }
}

extension EncodedCBOR: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let item = try decoder.singleValueContainer().decode(CBOR.self)
        guard case .tagged(CBORTag.encodedCBOR, .bytes(let inner)) = item else {
            throw CBORError.typeMismatch(expected: "tag 24 byte string", found: item.kindName, path: "", offset: nil)
                .located(at: decoder.codingPath)
        }
        do {
            try self.init(bytes: inner)
        } catch let error as CBORError {
            throw error.nested(in: decoder)
        }
    }
}
