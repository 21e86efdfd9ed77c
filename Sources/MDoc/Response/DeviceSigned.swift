import Foundation
import TesseraCBOR
import TesseraCOSE

/// `DeviceSigned = {"nameSpaces": DeviceNameSpacesBytes, "deviceAuth": DeviceAuth}` (§8.3.2.1.2.2).
public struct DeviceSigned: Codable, Sendable, Equatable {
    /// `DeviceNameSpacesBytes = #6.24(bstr .cbor DeviceNameSpaces)`,
    /// `DeviceNameSpaces = {* NameSpace => {+ DataElementIdentifier => DataElementValue}}`.
    public var nameSpaces: EncodedCBOR<[String: [String: CBOR]]>
    public var deviceAuth: DeviceAuth

    public init(nameSpaces: EncodedCBOR<[String: [String: CBOR]]>, deviceAuth: DeviceAuth) {
        self.nameSpaces = nameSpaces
        self.deviceAuth = deviceAuth
    }
}

/// `DeviceAuth = {"deviceSignature": DeviceSignature} / {"deviceMac": DeviceMac}` (§9.1.3).
public enum DeviceAuth: Codable, Sendable, Equatable {
    case deviceSignature(COSESign1)
    case deviceMac(COSEMac0)

    enum CodingKeys: String, CodingKey {
        case deviceSignature
        case deviceMac
    }

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

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .deviceSignature(let s): try c.encode(s, forKey: .deviceSignature)
        case .deviceMac(let m): try c.encode(m, forKey: .deviceMac)
        }
    }
}

/// `DeviceAuthenticationBytes = #6.24(bstr .cbor ["DeviceAuthentication", SessionTranscript, DocType,
/// DeviceNameSpacesBytes])` (§9.1.3.4): the detached payload of DeviceSignature and DeviceMac.
public enum DeviceAuthentication {
    public static func bytes(sessionTranscript: SessionTranscript, docType: String, deviceNameSpacesBytes: Data) -> Data {
        let array = CBOR.encodeArray(encodedElements: [
            CBOR.text("DeviceAuthentication").encoded(),
            sessionTranscript.bytes,
            CBOR.text(docType).encoded(),
            CBOR.encodeTag24(deviceNameSpacesBytes),
        ])
        return CBOR.encodeTag24(array)
    }
}
