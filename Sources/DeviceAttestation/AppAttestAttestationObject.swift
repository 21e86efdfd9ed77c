import Foundation
import TesseraCBOR

/// The attestation object `DCAppAttestService.attestKey` returns: a CBOR map
/// `{"fmt": "apple-appattest", "attStmt": {"x5c": [credCert, intermediate…], "receipt": bstr}, "authData": bstr}`.
struct AppAttestAttestationObject: Sendable {
    /// DER certificates, the credential certificate first.
    let x5c: [Data]
    let receipt: Data
    let authenticatorData: AppAttestAuthenticatorData

    init(_ bytes: Data) throws(AttestationParseError) {
        let map = try AppAttestCBOR.map(bytes, maxBytes: AttestationLimits.maxAttestationObjectBytes, "attestation object")
        guard map["fmt"]?.textValue == "apple-appattest" else {
            throw AttestationParseError("fmt is not \"apple-appattest\"")
        }
        guard let statement = map["attStmt"]?.mapValue else { throw AttestationParseError("attStmt is not a map") }
        guard let certificates = statement["x5c"]?.arrayValue, (1...AttestationLimits.maxChainLength).contains(certificates.count)
        else { throw AttestationParseError("attStmt.x5c must be an array of 1 to \(AttestationLimits.maxChainLength) certificates") }
        var x5c: [Data] = []
        for certificate in certificates {
            guard let der = certificate.bytesValue else { throw AttestationParseError("an x5c entry is not a byte string") }
            x5c.append(der)
        }
        self.x5c = x5c
        receipt = try AppAttestCBOR.bytes(statement, "receipt")
        authenticatorData = try AppAttestAuthenticatorData(try AppAttestCBOR.bytes(map, "authData"), .attestation)
    }
}
