import Foundation
import TesseraCBOR

/// Decoding of the CBOR maps App Attest sends (attestation object, assertion object): strict RFC 8949 decoding
/// under small limits, with typed field access that names the missing or mistyped field.
enum AppAttestCBOR {
    static let options = CBORDecodingOptions(
        deterministic: false, maxDepth: AttestationLimits.maxCBORDepth, maxItems: AttestationLimits.maxCBORItems)

    /// The map `bytes` holds, if it is at most `maxBytes` long.
    static func map(_ bytes: Data, maxBytes: Int, _ name: String) throws(AttestationParseError) -> CBORMap {
        guard bytes.count <= maxBytes else { throw AttestationParseError("\(name) is larger than \(maxBytes) bytes") }
        let value: CBOR
        do {
            value = try CBOR.decode(bytes, options: options)
        } catch {
            throw AttestationParseError("\(name) is not CBOR: \(error)")
        }
        guard case .map(let map) = value else { throw AttestationParseError("\(name) is not a CBOR map") }
        return map
    }

    static func bytes(_ map: CBORMap, _ key: String) throws(AttestationParseError) -> Data {
        guard let value = map[key]?.bytesValue else { throw AttestationParseError("\(key) is missing or not a byte string") }
        return value
    }
}
