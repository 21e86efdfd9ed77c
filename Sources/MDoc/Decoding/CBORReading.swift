import Foundation
import TesseraCBOR
import TesseraCOSE

/// The fields of one map, read by text key (the non-Codable decoding path). Same rules as the Codable bridge:
/// unknown keys are ignored; an optional field that is absent or null is nil; a missing required field is
/// `missingKey` at the map's path, a field of the wrong type `typeMismatch` at the field's.
struct MapReader {
    let map: CBORMap

    init(_ item: CBOR) throws(ReadFailure) {
        guard case .map(let m) = item else { throw .mismatch("map", item) }
        map = m
    }

    /// A required field, read with `read`.
    func field<T>(_ key: String, _ read: (CBOR) throws(ReadFailure) -> T) throws(ReadFailure) -> T {
        guard let value = map[key] else {
            throw ReadFailure(.cbor(.missingKey("\"\(key)\"", path: "", offset: nil)))
        }
        do throws(ReadFailure) {
            return try read(value)
        } catch {
            throw error.within(.key(key))
        }
    }

    /// An optional field, read with `read`; nil when absent, null or undefined.
    func optionalField<T>(_ key: String, _ read: (CBOR) throws(ReadFailure) -> T) throws(ReadFailure) -> T? {
        guard let value = map[key] else { return nil }
        switch value {
        case .null, .undefined: return nil
        default: break
        }
        do throws(ReadFailure) {
            return try read(value)
        } catch {
            throw error.within(.key(key))
        }
    }
}

/// Readers of single values, in the Codable bridge's terms.
enum Read {
    static func text(_ item: CBOR) throws(ReadFailure) -> String {
        guard case .text(let s) = item else { throw .mismatch("text string", item) }
        return s
    }

    static func bytes(_ item: CBOR) throws(ReadFailure) -> Data {
        guard case .bytes(let b) = item else { throw .mismatch("byte string", item) }
        return b
    }

    static func bool(_ item: CBOR) throws(ReadFailure) -> Bool {
        guard case .bool(let b) = item else { throw .mismatch("boolean", item) }
        return b
    }

    static func uint64(_ item: CBOR) throws(ReadFailure) -> UInt64 {
        switch item {
        case .unsigned(let n): return n
        case .negative: throw .invalid("integer out of range for UInt64")
        default: throw .mismatch("integer", item)
        }
    }

    static func int(_ item: CBOR) throws(ReadFailure) -> Int {
        switch item {
        case .unsigned, .negative:
            guard let v = item.intValue else { throw .invalid("integer out of range for Int") }
            return v
        default: throw .mismatch("integer", item)
        }
    }

    /// Any item, kept as it is.
    static func any(_ item: CBOR) throws(ReadFailure) -> CBOR { item }

    static func tdate(_ item: CBOR) throws(ReadFailure) -> TDate {
        do throws(CBORError) {
            return try TDate(item)
        } catch {
            throw ReadFailure(.cbor(error))
        }
    }

    /// `[* T]`, each element read with `element`.
    static func array<T>(_ item: CBOR, _ element: (CBOR) throws(ReadFailure) -> T) throws(ReadFailure) -> [T] {
        guard case .array(let items) = item else { throw .mismatch("array", item) }
        var out: [T] = []
        out.reserveCapacity(items.count)
        for (index, value) in items.enumerated() {
            do throws(ReadFailure) {
                out.append(try element(value))
            } catch {
                throw error.within(.index(index))
            }
        }
        return out
    }

    /// `{* tstr => T}`.
    static func textKeyed<T>(_ item: CBOR, _ value: (CBOR) throws(ReadFailure) -> T) throws(ReadFailure) -> [String: T] {
        guard case .map(let map) = item else { throw .mismatch("map", item) }
        var out: [String: T] = [:]
        out.reserveCapacity(map.count)
        for entry in map.entries {
            guard case .text(let key) = entry.key else { throw .mismatch("text string map key", entry.key) }
            do throws(ReadFailure) {
                out[key] = try value(entry.value)
            } catch {
                throw error.within(.key(key))
            }
        }
        return out
    }

    /// `{* int => T}`.
    static func intKeyed<T>(_ item: CBOR, _ value: (CBOR) throws(ReadFailure) -> T) throws(ReadFailure) -> [Int: T] {
        guard case .map(let map) = item else { throw .mismatch("map", item) }
        var out: [Int: T] = [:]
        out.reserveCapacity(map.count)
        for entry in map.entries {
            guard let key = entry.key.intValue else { throw .mismatch("integer map key", entry.key) }
            do throws(ReadFailure) {
                out[key] = try value(entry.value)
            } catch {
                throw error.within(.key(String(key)))
            }
        }
        return out
    }

    /// `#6.24(bstr .cbor T)`: the embedded item read with `read`, its bytes kept.
    static func embedded<T>(_ item: CBOR, _ read: (CBOR) throws(ReadFailure) -> T) throws(ReadFailure) -> EncodedCBOR<T> {
        try EncodedCBOR<T>.decode(
            tagged: item,
            malformed: { error in
                if case .typeMismatch = error { return ReadFailure(.cbor(error)) }
                return .invalid("embedded CBOR (tag 24): \(error)")
            },
            reading: { (inner: CBOR) throws(ReadFailure) -> T in
                do throws(ReadFailure) {
                    return try read(inner)
                } catch {
                    throw error.within(.embedded)
                }
            })
    }

    static func sign1(_ item: CBOR) throws(ReadFailure) -> COSESign1 {
        do throws(COSEError) {
            return try COSESign1(cbor: item)
        } catch {
            throw ReadFailure(.cose(error))
        }
    }

    static func mac0(_ item: CBOR) throws(ReadFailure) -> COSEMac0 {
        do throws(COSEError) {
            return try COSEMac0(cbor: item)
        } catch {
            throw ReadFailure(.cose(error))
        }
    }

    static func coseKey(_ item: CBOR) throws(ReadFailure) -> COSEKey {
        do throws(COSEError) {
            return try COSEKey(cbor: item)
        } catch {
            throw ReadFailure(.cose(error))
        }
    }
}
