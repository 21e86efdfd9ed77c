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

    /// IssuerSigned from items as issued (bytes kept) and the issuer's signature.
    public init(nameSpaces: [String: [EncodedCBOR<IssuerSignedItem>]]?, issuerAuth: COSESign1) {
        self.nameSpaces = nameSpaces
        self.issuerAuth = issuerAuth
    }

    /// Reads IssuerSigned (e.g. a stored credential or what an issuer returned), item bytes kept.
    /// - Throws: `MDocError.malformed` (with the key path and byte offset) or `.cose` for bytes that are not IssuerSigned.
    public init(bytes: Data) throws(MDocError) {
        self = try readStructure("IssuerSigned", from: bytes, Self.init(reading:))
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        nameSpaces = try fields.optionalField("nameSpaces") { (i) throws(ReadFailure) in
            try Read.textKeyed(i) { (items) throws(ReadFailure) in
                try Read.array(items) { (item) throws(ReadFailure) in try Read.embedded(item, IssuerSignedItem.init(reading:)) }
            }
        }
        issuerAuth = try fields.field("issuerAuth", Read.sign1)
    }

    /// The deterministic encoding, each IssuerSignedItemBytes and the issuerAuth as held.
    public func encoded() throws(MDocError) -> Data { cbor.encoded(options: .deterministic) }

    /// The structure as a CBOR item, built directly; the same item the Codable encoding produces.
    public var cbor: CBOR {
        var map = CBORMap()
        if let nameSpaces {
            map.append(
                key: "nameSpaces",
                value: .map(CBORMap(nameSpaces.map { CBORMap.Entry(key: .text($0.key), value: .array($0.value.map(\.cbor))) })))
        }
        map.append(key: "issuerAuth", value: issuerAuth.cbor(tagged: false))
        return .map(map)
    }

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
        return try readStructure("MobileSecurityObject", from: item) { (i) throws(ReadFailure) in
            try Read.embedded(i, MobileSecurityObject.init(reading:))
        }
    }
}

/// `IssuerSignedItem = {"digestID": uint, "random": bstr, "elementIdentifier": tstr, "elementValue": any}`.
public struct IssuerSignedItem: Codable, Sendable, Equatable {
    /// The key of this item's digest in the MSO's `valueDigests` for its namespace.
    public var digestID: UInt64
    /// Salt, at least 16 bytes when Tessera issues (§9.1.2.5).
    public var random: Data
    /// The data element identifier, e.g. `"family_name"`.
    public var elementIdentifier: String
    /// The element value as received; its type is checked against the namespace's CDDL where known (`MDL`).
    public var elementValue: CBOR

    /// An item; the issuer encodes it once and digests those bytes (see `MDocIssuer`).
    public init(digestID: UInt64, random: Data, elementIdentifier: String, elementValue: CBOR) {
        self.digestID = digestID
        self.random = random
        self.elementIdentifier = elementIdentifier
        self.elementValue = elementValue
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        digestID = try fields.field("digestID", Read.uint64)
        random = try fields.field("random", Read.bytes)
        elementIdentifier = try fields.field("elementIdentifier", Read.text)
        elementValue = try fields.field("elementValue", Read.any)
    }
}
