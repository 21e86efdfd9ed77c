import Foundation
import TesseraCBOR
import TesseraCOSE

// The DeviceRequest read without a decoded tree (the holder's hot path, see `FastCursor`): the layout of
// §8.3.2.1.2.1 with each key once. A request with anything else (requestInfo, 1.1 fields, unknown keys,
// indefinite lengths, an error) is read through the tree, which gives the same value or the error with its path.

extension DeviceRequest {
    static func fastRead(_ bytes: Data) -> DeviceRequest? {
        FastCursor.read(bytes) { (cursor) throws(FastCursor.GiveUp) -> DeviceRequest in
            var version: String?
            var docRequests: [DocRequest]?
            for _ in 0..<(try cursor.count(5)) {
                if try cursor.key("version") {
                    guard version == nil else { throw FastCursor.GiveUp() }  // a repeated key
                    version = try cursor.text()
                } else if try cursor.key("docRequests") {
                    guard docRequests == nil else { throw FastCursor.GiveUp() }  // a repeated key
                    let count = try cursor.count(4)
                    var list: [DocRequest] = []
                    list.reserveCapacity(count)
                    for _ in 0..<count { list.append(try DocRequest.fastRead(&cursor)) }
                    docRequests = list
                } else {
                    throw FastCursor.GiveUp()
                }
            }
            guard let version, let docRequests else { throw FastCursor.GiveUp() }
            return DeviceRequest(version: version, docRequests: docRequests)
        }
    }

    /// The fast path alone (nil when it gives up); with ``readThroughTree(_:)``, the mdoc fuzz target checks that
    /// the two paths agree.
    @_spi(Fuzzing) public static func readWithoutTree(_ bytes: Data) -> DeviceRequest? { fastRead(bytes) }
    /// The tree path alone: decodes to a `CBOR` tree and reads it, with the error and its path on failure.
    @_spi(Fuzzing) public static func readThroughTree(_ bytes: Data) throws(MDocError) -> DeviceRequest {
        try readStructure("DeviceRequest", from: bytes, Self.init(reading:))
    }
}

extension DocRequest {
    /// One DocRequest at depth 2 of the DeviceRequest (its readerAuth at depth 3).
    static func fastRead(_ cursor: inout FastCursor) throws(FastCursor.GiveUp) -> DocRequest {
        var itemsRequest: EncodedCBOR<ItemsRequest>?
        var readerAuth: COSESign1?
        var sawReaderAuth = false
        for _ in 0..<(try cursor.count(5)) {
            if try cursor.key("itemsRequest") {
                guard itemsRequest == nil else { throw FastCursor.GiveUp() }  // a repeated key
                itemsRequest = EncodedCBOR.read(Data(try cursor.tag24()), ItemsRequest.fastRead)
                guard itemsRequest != nil else { throw FastCursor.GiveUp() }
            } else if try cursor.key("readerAuth") {
                guard !sawReaderAuth else { throw FastCursor.GiveUp() }  // a repeated key
                sawReaderAuth = true
                if cursor.skipNull() { continue }
                let item = try cursor.item(atDepth: 3)
                do {
                    readerAuth = try COSESign1(cbor: item)
                } catch {
                    throw FastCursor.GiveUp()
                }
            } else {
                throw FastCursor.GiveUp()
            }
        }
        guard let itemsRequest else { throw FastCursor.GiveUp() }
        return DocRequest(itemsRequest: itemsRequest, readerAuth: readerAuth)
    }
}

extension ItemsRequest {
    /// ItemsRequest without requestInfo (a request with one is read through the tree).
    static func fastRead(_ bytes: Data) -> ItemsRequest? {
        FastCursor.read(bytes) { (cursor) throws(FastCursor.GiveUp) -> ItemsRequest in
            var docType: String?
            var nameSpaces: [String: [String: Bool]]?
            for _ in 0..<(try cursor.count(5)) {
                if try cursor.key("docType") {
                    guard docType == nil else { throw FastCursor.GiveUp() }  // a repeated key
                    docType = try cursor.text()
                } else if try cursor.key("nameSpaces") {
                    guard nameSpaces == nil else { throw FastCursor.GiveUp() }  // a repeated key
                    nameSpaces = try Self.fastNameSpaces(&cursor)
                } else {
                    throw FastCursor.GiveUp()
                }
            }
            guard let docType, let nameSpaces else { throw FastCursor.GiveUp() }
            return ItemsRequest(docType: docType, nameSpaces: nameSpaces)
        }
    }

    /// `{* tstr => {* tstr => bool}}`. Two keys that are different bytes but equal strings give up: the tree path
    /// decides what such a map means.
    private static func fastNameSpaces(_ cursor: inout FastCursor) throws(FastCursor.GiveUp) -> [String: [String: Bool]] {
        let count = try cursor.count(5)
        var nameSpaces = [String: [String: Bool]](minimumCapacity: count)
        for _ in 0..<count {
            let nameSpace = try cursor.text()
            let elementCount = try cursor.count(5)
            var elements = [String: Bool](minimumCapacity: elementCount)
            for _ in 0..<elementCount {
                let identifier = try cursor.text()
                guard elements.updateValue(try cursor.bool(), forKey: identifier) == nil else { throw FastCursor.GiveUp() }
            }
            guard nameSpaces.updateValue(elements, forKey: nameSpace) == nil else { throw FastCursor.GiveUp() }
        }
        return nameSpaces
    }
}
