import Foundation
import SwiftASN1

/// The credential certificate's nonce extension (OID 1.2.840.113635.100.8.2): a DER SEQUENCE holding one
/// `[1] EXPLICIT OCTET STRING`, the SHA-256 nonce the device bound into the certificate
/// ("Validating apps that connect to your server", attestation step 4).
package enum AppAttestNonce {
    package static let oid: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 2]

    static func value(in certificate: AttestationCertificate) throws(AttestationParseError) -> Data {
        guard let ext = try certificate.uniqueExtension(oid) else {
            throw AttestationParseError("the credential certificate has no nonce extension (1.2.840.113635.100.8.2)")
        }
        do {
            var sequence = try DERNodes.sequence(try DER.parse(Array(ext.value)), "nonce extension")
            let tagged = try sequence.required("nonce")
            try sequence.end("nonce extension")
            guard tagged.identifier == ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific) else {
                throw AttestationParseError("the nonce extension does not hold [1] EXPLICIT OCTET STRING")
            }
            var explicit = try DERNodes.constructed(tagged, "[1] nonce")
            let octets = try ASN1OctetString(derEncoded: try explicit.required("nonce"))
            try explicit.end("[1] nonce")
            return Data(octets.bytes)
        } catch let error as AttestationParseError {
            throw error
        } catch {
            throw AttestationParseError("the nonce extension is not DER: \(error)")
        }
    }
}
