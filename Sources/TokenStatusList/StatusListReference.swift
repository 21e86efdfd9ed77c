import TesseraCBOR
import TesseraJOSE

/// The Status List entry of a Referenced Token (TSL §6): its index `idx` in the list served at `uri`. In JSON
/// (JWT, SD-JWT VC) it is the `status` claim `{"status_list": {"idx": n, "uri": "https://…"}}` (TSL §6.2); in CBOR
/// (CWT claim 65535, SD-CWT, the mdoc MSO) the same map with text keys (TSL §6.3).
public struct StatusListReference: Sendable, Hashable {
    /// The CWT claim key of `status` (TSL §6.3, §14.3).
    public static let cwtClaimKey: UInt64 = 65535

    /// `idx`: the index of the Referenced Token's status in the list.
    public let index: Int
    /// `uri`: where the Status List Token is served (its `sub`).
    public let uri: String

    /// A reference to entry `index` of the list served at `uri`.
    public init(index: Int, uri: String) {
        self.index = index
        self.uri = uri
    }

    /// Reads the JSON `status` claim's `status_list` member (TSL §6.2); other mechanisms beside it are ignored.
    public init(claim: JSONValue) throws(StatusListError) {
        guard let statusList = claim["status_list"]?.objectValue else {
            throw .malformedReference("no status_list object")
        }
        guard let index = statusList["idx"]?.int64Value, index >= 0, index <= Int64(Int32.max) else {
            throw .malformedReference("idx missing or not a non-negative integer")
        }
        guard let uri = statusList["uri"]?.stringValue else { throw .malformedReference("uri missing or not a string") }
        self.index = Int(index)
        self.uri = uri
    }

    /// Reads the CBOR `Status` map's `"status_list"` entry (TSL §6.3): `{"idx": uint, "uri": tstr}`.
    public init(cbor: CBOR) throws(StatusListError) {
        guard let statusList = cbor.mapValue?["status_list"]?.mapValue else {
            throw .malformedReference("no status_list map")
        }
        guard let index = statusList["idx"]?.uint64Value, index <= UInt64(Int32.max) else {
            throw .malformedReference("idx missing or not an unsigned integer")
        }
        guard let uri = statusList["uri"]?.textValue else { throw .malformedReference("uri missing or not a text string") }
        self.index = Int(index)
        self.uri = uri
    }

    /// The JSON `status` claim value (TSL §6.2).
    public var claim: JSONValue {
        .object(["status_list": .object(["idx": .integer(Int64(index)), "uri": .string(uri)])])
    }

    /// The CBOR `Status` value (TSL §6.3), for CWT claim 65535 or an mdoc MSO.
    public var cbor: CBOR {
        var info = CBORMap()
        info.append(key: "idx", value: .int(index))
        info.append(key: "uri", value: .text(uri))
        return .map(CBORMap([CBORMap.Entry(key: "status_list", value: .map(info))]))
    }
}
