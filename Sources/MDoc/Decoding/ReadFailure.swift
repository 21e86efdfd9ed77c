import Foundation
import TesseraCBOR
import TesseraCOSE

/// A failure met while reading an ISO 18013-5 structure straight from decoded CBOR (the decoding path that does
/// not go through Codable), with where it happened. The path is collected on the way out, so a structure that
/// reads cleanly never builds one; at the top it becomes the `MDocError` the Codable bridge would have raised:
/// `malformed` with the key path (and byte offset), or `cose` for an embedded COSE object.
struct ReadFailure: Error {
    enum Cause {
        /// A mapping error (`typeMismatch`, `missingKey`, `invalidValue`), its path relative to where it was raised.
        case cbor(CBORError)
        case cose(COSEError)
    }

    enum PathComponent {
        case key(String)
        case index(Int)
        /// A step into the item carried by `24(h'…')`.
        case embedded
    }

    var cause: Cause
    /// Innermost first.
    private var reversedPath: [PathComponent] = []

    init(_ cause: Cause) {
        self.cause = cause
    }

    static func mismatch(_ expected: String, _ found: CBOR) -> ReadFailure {
        ReadFailure(.cbor(.typeMismatch(expected: expected, found: found.kindName, path: "", offset: nil)))
    }

    static func invalid(_ message: String) -> ReadFailure {
        ReadFailure(.cbor(.invalidValue(message, path: "", offset: nil)))
    }

    /// The same failure, one level further out.
    func within(_ component: PathComponent) -> ReadFailure {
        var outer = self
        outer.reversedPath.append(component)
        return outer
    }

    /// The path as the Codable bridge renders coding paths: `documents[0].issuerSigned.<<>>.digestID`.
    var path: String {
        var out = ""
        for component in reversedPath.reversed() {
            switch component {
            case .index(let i): out += "[\(i)]"
            case .key(let k): out += out.isEmpty ? k : "." + k
            case .embedded: out += out.isEmpty ? "<<>>" : ".<<>>"
            }
        }
        return out
    }

    /// The error for `structure`; with the bytes the structure was decoded from, a mapping error gets its offset.
    func mdocError(structure: String, decodedFrom bytes: Data? = nil) -> MDocError {
        switch cause {
        case .cbor(let error):
            let located = error.prefixingPath(path)
            return .malformed(structure: structure, bytes.map { located.locatingOffset(in: $0) } ?? located)
        case .cose(let error):
            let path = self.path
            return .cose(structure: path.isEmpty ? structure : "\(structure) \(path)", error)
        }
    }
}

extension CBORError {
    /// A mapping error with `prefix` put in front of its own path.
    func prefixingPath(_ prefix: String) -> CBORError {
        func join(_ p: String) -> String {
            if prefix.isEmpty { return p }
            if p.isEmpty { return prefix }
            return p.hasPrefix("[") ? prefix + p : prefix + "." + p
        }
        switch self {
        case .typeMismatch(let e, let f, let p, let o): return .typeMismatch(expected: e, found: f, path: join(p), offset: o)
        case .missingKey(let k, let p, let o): return .missingKey(k, path: join(p), offset: o)
        case .invalidValue(let m, let p, let o): return .invalidValue(m, path: join(p), offset: o)
        default: return self
        }
    }
}

/// Decodes `bytes` strictly and reads a `T` out of the item without Codable; errors name `structure`.
func readStructure<T>(_ structure: String, from bytes: Data, _ read: (CBOR) throws(ReadFailure) -> T) throws(MDocError) -> T {
    let item: CBOR
    do throws(CBORError) {
        item = try CBOR.decode(bytes)
    } catch {
        throw .malformed(structure: structure, error)
    }
    do throws(ReadFailure) {
        return try read(item)
    } catch {
        throw error.mdocError(structure: structure, decodedFrom: bytes)
    }
}

/// Reads a `T` out of an already decoded item without Codable; errors name `structure`.
func readStructure<T>(_ structure: String, from item: CBOR, _ read: (CBOR) throws(ReadFailure) -> T) throws(MDocError) -> T {
    do throws(ReadFailure) {
        return try read(item)
    } catch {
        throw error.mdocError(structure: structure)
    }
}
