import Foundation
import TesseraCBOR
import TesseraCOSE

/// `DeviceSigned = {"nameSpaces": DeviceNameSpacesBytes, "deviceAuth": DeviceAuth}` (§8.3.2.1.2.2).
public struct DeviceSigned: Codable, Sendable, Equatable {
    /// `DeviceNameSpacesBytes = #6.24(bstr .cbor DeviceNameSpaces)`,
    /// `DeviceNameSpaces = {* NameSpace => {+ DataElementIdentifier => DataElementValue}}`.
    public var nameSpaces: EncodedCBOR<[String: [String: CBOR]]>
    /// DeviceSignature or DeviceMac over DeviceAuthenticationBytes (§9.1.3).
    public var deviceAuth: DeviceAuth

    /// DeviceSigned from DeviceNameSpacesBytes (encode them once and keep them) and the authentication over them.
    public init(nameSpaces: EncodedCBOR<[String: [String: CBOR]]>, deviceAuth: DeviceAuth) {
        self.nameSpaces = nameSpaces
        self.deviceAuth = deviceAuth
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        nameSpaces = try fields.field("nameSpaces") { (i) throws(ReadFailure) in
            try Read.embedded(i) { (ns) throws(ReadFailure) in
                try Read.textKeyed(ns) { (elements) throws(ReadFailure) in try Read.textKeyed(elements, Read.any) }
            }
        }
        deviceAuth = try fields.field("deviceAuth", DeviceAuth.init(reading:))
    }

    /// The structure as a CBOR item (as the Codable encoding writes it), DeviceNameSpacesBytes as held.
    public var cbor: CBOR {
        var map = CBORMap()
        map.append(key: "nameSpaces", value: nameSpaces.cbor)
        map.append(key: "deviceAuth", value: deviceAuth.cbor)
        return .map(map)
    }
}

/// `DeviceAuth = {"deviceSignature": DeviceSignature} / {"deviceMac": DeviceMac}` (§9.1.3).
public enum DeviceAuth: Codable, Sendable, Equatable {
    /// `DeviceSignature = COSE_Sign1` with detached payload DeviceAuthenticationBytes (§9.1.3.6).
    case deviceSignature(COSESign1)
    /// `DeviceMac = COSE_Mac0` (HMAC-SHA256 with EMacKey) with detached payload DeviceAuthenticationBytes (§9.1.3.5).
    case deviceMac(COSEMac0)

    enum CodingKeys: String, CodingKey {
        case deviceSignature
        case deviceMac
    }

    /// Decodes the map; exactly one of `deviceSignature` and `deviceMac` must be present.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let signature = try c.decodeIfPresent(COSESign1.self, forKey: .deviceSignature)
        let mac = try c.decodeIfPresent(COSEMac0.self, forKey: .deviceMac)
        switch (signature, mac) {
        case (let s?, nil): self = .deviceSignature(s)
        case (nil, let m?): self = .deviceMac(m)
        default:
            throw CBORError.invalidValue(
                "DeviceAuth needs exactly one of deviceSignature and deviceMac", path: "", offset: nil
            ).located(at: decoder.codingPath)
        }
    }

    /// Encodes the one-entry map.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .deviceSignature(let s): try c.encode(s, forKey: .deviceSignature)
        case .deviceMac(let m): try c.encode(m, forKey: .deviceMac)
        }
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        let signature = try fields.optionalField("deviceSignature", Read.sign1)
        let mac = try fields.optionalField("deviceMac", Read.mac0)
        switch (signature, mac) {
        case (let s?, nil): self = .deviceSignature(s)
        case (nil, let m?): self = .deviceMac(m)
        default: throw .invalid("DeviceAuth needs exactly one of deviceSignature and deviceMac")
        }
    }

    /// Embedded COSE messages are untagged (§9.1.3), as the Codable encoding writes them.
    public var cbor: CBOR {
        switch self {
        case .deviceSignature(let s): return .map(CBORMap([CBORMap.Entry(key: "deviceSignature", value: s.cbor(tagged: false))]))
        case .deviceMac(let m): return .map(CBORMap([CBORMap.Entry(key: "deviceMac", value: m.cbor(tagged: false))]))
        }
    }
}

/// `DeviceAuthenticationBytes = #6.24(bstr .cbor ["DeviceAuthentication", SessionTranscript, DocType,
/// DeviceNameSpacesBytes])` (§9.1.3.4): the detached payload of DeviceSignature and DeviceMac.
public enum DeviceAuthentication {
    /// `DeviceAuthenticationBytes` from the transcript and DeviceNameSpacesBytes exactly as sent: the
    /// transcript is embedded as its held bytes, never re-encoded.
    public static func bytes(sessionTranscript: SessionTranscript, docType: String, deviceNameSpacesBytes: Data) -> Data {
        CBOR.encodeTag24Array([
            .text("DeviceAuthentication"), .encoded(sessionTranscript.bytes), .text(docType), .tag24(deviceNameSpacesBytes),
        ])
    }
}
