import Crypto
import DeviceAttestation
import Foundation
import SwiftASN1
import TesseraJOSE
import Testing
import TesseraCore

@_exported import TesseraTestSupport

/// The shared attestation vectors, copied into Fixtures/ (the tests never read ../shared).
enum Fixtures {
    static func json(_ name: String) throws -> JSONValue {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures") else {
            throw MissingMember(path: "fixture \(name).json")
        }
        return try JSONValue.parse(Data(contentsOf: url))
    }

    static func samples(_ name: String) throws -> [JSONValue] {
        guard let samples = try json(name).arrayValue else { throw MissingMember(path: "\(name).json: top-level array") }
        return samples
    }

    static func android() throws -> [JSONValue] { try samples("android-key-attestation") }
    static func apple() throws -> [JSONValue] { try samples("apple-app-attest") }
    static func roots() throws -> JSONValue { try json("roots") }

    /// The SubjectPublicKeyInfo DER of a Google root key in roots.json, by id.
    static func googleRootKey(id: String) throws -> Data {
        for root in try roots().array("google_hardware_attestation_roots") where try root.string("id") == id {
            return Data(try PEMDocument(pemString: try root.string("public_key_pem")).derBytes)
        }
        throw MissingMember(path: "roots.json google root \(id)")
    }
}

struct BadFixture: Error, CustomStringConvertible {
    let description: String
}

/// Standard (padded) base64, as the vectors write binary values.
func base64(_ text: String) throws -> Data {
    guard let data = Data(base64Encoded: text) else { throw BadFixture(description: "not base64: \(text.prefix(40))") }
    return data
}

/// Unpadded base64url (JWK coordinates).
func base64URL(_ text: String) throws -> Data { try Base64URL.decode(text) }

/// An ISO 8601 UTC instant with whole seconds, e.g. `2026-01-01T00:00:00Z`.
func instant(_ text: String) throws -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else { throw BadFixture(description: "not an instant: \(text)") }
    return date
}

/// A failure name of the vectors without its parenthesised explanation:
/// "malformed_extension (RootOfTrust.deviceLocked is not a DER BOOLEAN)" → malformed_extension.
func failureName(_ text: String) -> String {
    let name = text.split(separator: " ", maxSplits: 1).first.map(String.init) ?? text
    return name
}

func failures(_ values: [JSONValue]) throws -> [String] {
    try values.map { value in
        guard let text = value.stringValue else { throw BadFixture(description: "failure is not a string") }
        return failureName(text)
    }
}

/// The order in which the Android verifier checks its rules, which is the order of `AttestationFailure`'s cases.
func inRuleOrder(_ failures: Set<AttestationFailure>) -> [AttestationFailure] {
    AttestationFailure.allCases.filter(failures.contains)
}

/// A P-256 public key from a JWK object of the vectors.
func p256Key(jwk: JSONValue) throws -> P256.Signing.PublicKey {
    let x = try base64URL(try jwk.string("x"))
    let y = try base64URL(try jwk.string("y"))
    return try P256.Signing.PublicKey(x963Representation: Data([0x04]) + x + y)
}
