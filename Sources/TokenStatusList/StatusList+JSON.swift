import Foundation
import TesseraCore
import TesseraJOSE

extension StatusList {
    /// From the JSON Status List (TSL §4.2): `bits` (an integer), `lst` (base64url of the ZLIB data) and an optional
    /// `aggregation_uri` (a string); other members are ignored. The decompressed list may hold at most
    /// `limits.maxListBytes` bytes.
    public init(json: JSONObject, limits: StatusListLimits = .default) throws(StatusListError) {
        guard let bits = json["bits"]?.int64Value else { throw .malformedStatusList("bits missing or not an integer") }
        guard let lst = json["lst"]?.stringValue else { throw .malformedStatusList("lst missing or not a string") }
        let aggregationURI = try Self.aggregationURI(json["aggregation_uri"].map { $0.stringValue })
        let compressed: Data
        do {
            compressed = try Base64URL.decode(lst)
        } catch {
            throw .malformedStatusList("lst is not base64url")
        }
        try self.init(
            bits: Int(clamping: bits), compressed: Array(compressed), aggregationURI: aggregationURI, limits: limits)
    }

    /// The JSON Status List (TSL §4.2): `{"bits": n, "lst": base64url(zlib(bytes)), "aggregation_uri"?: …}`.
    public func jsonObject() throws(StatusListError) -> JSONObject {
        var object: JSONObject = [
            "bits": .integer(Int64(bits)), "lst": .string(Base64URL.encode(try compressedBytes())),
        ]
        if let aggregationURI { object["aggregation_uri"] = .string(aggregationURI) }
        return object
    }

    /// `aggregation_uri` as read: absent (nil), a string, or present with another type (`.some(nil)`).
    static func aggregationURI(_ member: String??) throws(StatusListError) -> String? {
        switch member {
        case .none: return nil
        case .some(.none): throw .malformedStatusList("aggregation_uri is not a string")
        case .some(.some(let uri)): return uri
        }
    }
}
