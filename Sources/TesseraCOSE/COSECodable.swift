import Foundation
import TesseraCBOR

// Codable through the CBOR bridge, so format layers (ISO 18013-5) can declare structures
// that hold COSE objects. Embedded messages are written untagged, as ISO 18013-5 §9.1.2.4 and
// §9.1.3 embed them; decoding accepts tagged or untagged. Errors keep their COSE meaning and
// are reported at the coding path where the object sits.

/// A COSE object read from, and written as, one CBOR item.
protocol COSEItemCodable: Codable {
    init(cborItem: CBOR) throws(COSEError)
    var codableItem: CBOR { get }
}

extension COSEItemCodable {
    public init(from decoder: any Decoder) throws {
        let item = try decoder.singleValueContainer().decode(CBOR.self)
        do {
            try self.init(cborItem: item)
        } catch {
            throw COSECodingError(path: decoder.codingPath, error: error)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(codableItem)
    }
}

extension COSESign1: COSEItemCodable {
    init(cborItem: CBOR) throws(COSEError) { try self.init(cbor: cborItem) }
    var codableItem: CBOR { cbor(tagged: false) }
}

extension COSEMac0: COSEItemCodable {
    init(cborItem: CBOR) throws(COSEError) { try self.init(cbor: cborItem) }
    var codableItem: CBOR { cbor(tagged: false) }
}

extension COSEKey: COSEItemCodable {
    init(cborItem: CBOR) throws(COSEError) { try self.init(cbor: cborItem) }
    var codableItem: CBOR { cbor }
}

/// A COSE error met while decoding a larger structure, with where it sat.
public struct COSECodingError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let error: COSEError

    init(path: [any CodingKey], error: COSEError) {
        self.path = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        self.error = error
    }

    public var description: String { path.isEmpty ? "\(error)" : "\(error) (at \(path))" }
}
