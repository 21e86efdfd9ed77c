import Foundation
import TesseraCBOR
import TesseraCOSE

/// `IssuerSigned = {? "nameSpaces": IssuerNameSpaces, "issuerAuth": IssuerAuth}` (§8.3.2.1.2.2).
/// Also the form a holder stores its credential in.
public struct IssuerSigned: Codable, Sendable, Equatable {
    /// `IssuerNameSpaces = {+ NameSpace => [+ IssuerSignedItemBytes]}`, each item's bytes kept:
    /// its digest in the MSO is over exactly those bytes.
    public var nameSpaces: [String: [EncodedCBOR<IssuerSignedItem>]]?
    /// `IssuerAuth = COSE_Sign1` over `MobileSecurityObjectBytes` (§9.1.2.4).
    public var issuerAuth: COSESign1

    public init(nameSpaces: [String: [EncodedCBOR<IssuerSignedItem>]]?, issuerAuth: COSESign1) {
        self.nameSpaces = nameSpaces
        self.issuerAuth = issuerAuth
    }

    public init(bytes: Data) throws(MDocError) {
        self = try decodeStructure(Self.self, "IssuerSigned", from: bytes)
    }

    public func encoded() throws(MDocError) -> Data { try encodeStructure(self, "IssuerSigned") }

    /// The MSO carried by issuerAuth (payload = `#6.24(bstr .cbor MobileSecurityObject)`), bytes kept.
    public func mobileSecurityObject() throws(MDocError) -> EncodedCBOR<MobileSecurityObject> {
        guard let payload = issuerAuth.payload else {
            throw .invalidStructure(structure: "IssuerAuth", reason: "payload (MobileSecurityObjectBytes) is detached")
        }
        let item: CBOR
        do {
            item = try CBOR.decode(payload)
        } catch {
            throw .malformed(structure: "MobileSecurityObjectBytes", error)
        }
        return try mappingDecodeErrors("MobileSecurityObject") { try EncodedCBOR<MobileSecurityObject>(tagged: item) }
    }
}

/// `IssuerSignedItem = {"digestID": uint, "random": bstr, "elementIdentifier": tstr, "elementValue": any}`.
public struct IssuerSignedItem: Codable, Sendable, Equatable {
    public var digestID: UInt64
    /// Salt, at least 16 bytes when Tessera issues (§9.1.2.5).
    public var random: Data
    public var elementIdentifier: String
    public var elementValue: CBOR

    public init(digestID: UInt64, random: Data, elementIdentifier: String, elementValue: CBOR) {
        self.digestID = digestID
        self.random = random
        self.elementIdentifier = elementIdentifier
        self.elementValue = elementValue
    }
}
