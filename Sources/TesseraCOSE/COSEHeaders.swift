import Foundation
import TesseraCBOR

/// One header bucket: a map from labels to values (RFC 9052 §3, `header_map`).
///
/// Entries keep the order in which they were received or set. Labels must be integers
/// or text strings, and the common parameters are type-checked whenever they are
/// stored (RFC 9052 §3.1, RFC 9360 §2):
///
/// | label | name | value |
/// |---|---|---|
/// | 1 | alg | int / tstr |
/// | 2 | crit | [+ label] |
/// | 3 | content type | uint / tstr |
/// | 4 | kid | bstr |
/// | 5, 6 | IV, Partial IV | bstr |
/// | 33 | x5chain | bstr / [+ bstr] (DER certificates, leaf first) |
///
/// Any other label is kept as an uninterpreted `CBOR` value.
public struct COSEHeaders: Hashable, Sendable {
    /// The bucket as a CBOR map, in held order.
    public private(set) var map: CBORMap

    /// An empty bucket.
    public init() { map = CBORMap() }

    /// A bucket holding the entries of `map`, after checking labels and known values.
    public init(map: CBORMap) throws(COSEError) {
        let entries = map.entries
        // A bucket has a handful of labels: each is compared with those before it, with no set to build and hash.
        // The labels before this one were checked to be integers or text strings.
        let small = entries.count <= Self.linearSearchLimit
        var seen = Set<COSEHeaderLabel>()
        for (position, entry) in entries.enumerated() {
            let label = try COSEHeaderLabel(cbor: entry.key)
            let repeated = small
                ? entries[..<position].contains(where: { $0.key.isSameLabel(as: entry.key) }) : !seen.insert(label).inserted
            guard !repeated else {
                throw .invalidHeaderValue(label: label, reason: "label appears twice in one bucket")
            }
            try Self.validate(entry.value, for: label)
        }
        self.map = map
    }

    /// Up to this many labels, duplicates are found by comparing each label with the ones before it.
    static let linearSearchLimit = 16

    /// A bucket holding the common parameters given (nil ones are left out), in label order.
    public init(algorithm: COSEAlgorithm? = nil, contentType: COSEContentType? = nil, keyID: Data? = nil, x5chain: [Data]? = nil) {
        self.init()
        setAlgorithm(algorithm)
        self.contentType = contentType
        self.keyID = keyID
        self.x5chain = x5chain
    }

    public var cbor: CBOR { .map(map) }
    public var isEmpty: Bool { map.isEmpty }
    public var count: Int { map.count }

    /// The labels in held order.
    public var labels: [COSEHeaderLabel] {
        // Every key was checked by `init(map:)` or `set(_:for:)`, so none is dropped.
        map.keys.compactMap { try? COSEHeaderLabel(cbor: $0) }
    }

    /// The raw value under `label`.
    public subscript(label: COSEHeaderLabel) -> CBOR? { map[label.cbor] }
    public subscript(label: Int) -> CBOR? { map[.int(label)] }
    public subscript(label: String) -> CBOR? { map[.text(label)] }

    /// Stores (or with nil, removes) a value, type-checking the common parameters.
    public mutating func set(_ value: CBOR?, for label: COSEHeaderLabel) throws(COSEError) {
        if let value { try Self.validate(value, for: label) }
        map[label.cbor] = value
    }

    // MARK: Typed access

    /// `alg` (label 1), or nil when absent. An unknown algorithm is an error.
    public var algorithm: COSEAlgorithm? {
        get throws(COSEError) {
            guard let value = self[.algorithm] else { return nil }
            return try COSEAlgorithm(cbor: value)
        }
    }

    /// Sets or removes `alg` (label 1).
    public mutating func setAlgorithm(_ algorithm: COSEAlgorithm?) {
        map[COSEHeaderLabel.algorithm.cbor] = algorithm?.cbor
    }

    /// `kid` (label 4).
    public var keyID: Data? {
        get { self[.keyID]?.bytesValue }
        set { map[COSEHeaderLabel.keyID.cbor] = newValue.map(CBOR.bytes) }
    }

    /// `content type` (label 3).
    public var contentType: COSEContentType? {
        get { self[.contentType].flatMap { try? COSEContentType(cbor: $0) } }
        set { map[COSEHeaderLabel.contentType.cbor] = newValue?.cbor }
    }

    /// `x5chain` (label 33, RFC 9360 §2): DER certificates, leaf first. A single certificate
    /// is one bstr on the wire, several are an array; setting an empty array removes the header.
    public var x5chain: [Data]? {
        get {
            switch self[.x5chain] {
            case .bytes(let cert)?: return [cert]
            case .array(let items)?: return items.compactMap(\.bytesValue)
            default: return nil
            }
        }
        set {
            let value: CBOR?
            switch newValue {
            case nil: value = nil
            case let certs? where certs.isEmpty: value = nil
            case let certs? where certs.count == 1: value = certs.first.map(CBOR.bytes)
            case let certs?: value = .array(certs.map(CBOR.bytes))
            }
            map[COSEHeaderLabel.x5chain.cbor] = value
        }
    }

    /// `crit` (label 2): labels the recipient must understand.
    public var criticalLabels: [COSEHeaderLabel]? {
        guard case .array(let items)? = self[.critical] else { return nil }
        return items.compactMap { try? COSEHeaderLabel(cbor: $0) }
    }

    // MARK: Internals

    /// The same entries in core deterministic key order (RFC 8949 §4.2.1), used when building.
    func deterministicallyOrdered() -> COSEHeaders {
        var copy = self
        let sorted = map.entries
            .map { (key: $0.key.encodedBytes(options: .deterministic), entry: $0) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            .map(\.entry)
        copy.map = CBORMap(sorted)
        return copy
    }

    /// Type checks for the parameters of RFC 9052 §3.1 and RFC 9360 §2.
    static func validate(_ value: CBOR, for label: COSEHeaderLabel) throws(COSEError) {
        func fail(_ reason: String) -> COSEError { .invalidHeaderValue(label: label, reason: reason) }
        switch label {
        case .algorithm:
            switch value {
            case .unsigned, .negative, .text: return
            default: throw fail("must be an integer or text string, found \(value.kindName)")
            }
        case .critical:
            guard case .array(let items) = value, !items.isEmpty else {
                throw fail("must be a non-empty array of labels")
            }
            for item in items {
                do { _ = try COSEHeaderLabel(cbor: item) } catch { throw fail("holds a \(item.kindName), not a label") }
            }
        case .contentType:
            _ = try COSEContentType(cbor: value)
        case .keyID, .iv, .partialIV:
            guard case .bytes = value else { throw fail("must be a byte string, found \(value.kindName)") }
        case .x5chain:
            switch value {
            case .bytes: return
            case .array(let items) where !items.isEmpty && items.allSatisfy({ $0.bytesValue != nil }): return
            default: throw fail("must be a byte string or a non-empty array of byte strings")
            }
        default:
            return
        }
    }
}
