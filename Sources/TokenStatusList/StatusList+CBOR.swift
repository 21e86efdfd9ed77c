import Foundation
import TesseraCBOR

extension StatusList {
    /// From the CBOR Status List (TSL §4.3): a map with text keys, `"bits"` (an unsigned integer), `"lst"` (a byte
    /// string of ZLIB data) and an optional `"aggregation_uri"` (a text string); other keys are ignored. The
    /// decompressed list may hold at most `limits.maxListBytes` bytes.
    public init(cbor: CBOR, limits: StatusListLimits = .default) throws(StatusListError) {
        guard let map = cbor.mapValue else { throw .malformedStatusList("not a map") }
        guard let bits = map["bits"]?.uint64Value else {
            throw .malformedStatusList("bits missing or not an unsigned integer")
        }
        guard let lst = map["lst"]?.bytesValue else { throw .malformedStatusList("lst missing or not a byte string") }
        let aggregationURI = try Self.aggregationURI(map["aggregation_uri"].map { $0.textValue })
        try self.init(bits: Int(clamping: bits), compressed: Array(lst), aggregationURI: aggregationURI, limits: limits)
    }

    /// From the encoded CBOR Status List: exactly one data item of at most `limits.maxTokenBytes` bytes (it is what
    /// a CWT Status List Token carries), decoded strictly within `limits`.
    public init(cborBytes: Data, limits: StatusListLimits = .default) throws(StatusListError) {
        try self.init(cbor: limits.decodeCBOR(cborBytes, failure: StatusListError.malformedStatusList), limits: limits)
    }

    /// The CBOR Status List (TSL §4.3): `{"bits": n, "lst": h'zlib(bytes)', "aggregation_uri"?: …}`, keys in that
    /// order as the draft's examples write them.
    public func cbor() throws(StatusListError) -> CBOR {
        var map = CBORMap()
        map.append(key: "bits", value: .unsigned(UInt64(bits)))
        map.append(key: "lst", value: .bytes(Data(try compressedBytes())))
        if let aggregationURI { map.append(key: "aggregation_uri", value: .text(aggregationURI)) }
        return .map(map)
    }
}
