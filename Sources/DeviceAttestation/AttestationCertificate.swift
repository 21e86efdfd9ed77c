import Foundation
import SwiftASN1

/// The parts of an X.509 certificate (RFC 5280 §4.1) an attestation verifier needs, read with swift-asn1 in DER.
///
/// swift-certificates' `Certificate` cannot be used for every attestation certificate: it rejects public keys it
/// does not support (Android leaves may hold ML-DSA-65 keys), and attestation verification needs the exact bytes
/// of names, the SubjectPublicKeyInfo and extensions. The signed bytes (`tbsCertificate`) are kept as received.
struct AttestationCertificate: Sendable {
    struct Extension: Sendable {
        let oid: ASN1ObjectIdentifier
        let critical: Bool
        let value: Data
    }

    /// The whole certificate as received.
    let der: Data
    /// TBSCertificate exactly as received: the bytes the issuer signed.
    let tbsCertificate: Data
    let signatureAlgorithm: ASN1ObjectIdentifier
    /// The signatureValue BIT STRING's bytes.
    let signature: Data
    /// The serialNumber INTEGER's content octets (big-endian two's complement).
    let serialNumber: Data
    /// DER of the issuer and subject Names, compared byte for byte when chaining.
    let issuer: Data
    let subject: Data
    let notBefore: Date
    let notAfter: Date
    /// DER of the SubjectPublicKeyInfo.
    let subjectPublicKeyInfo: Data
    let extensions: [Extension]

    init(der bytes: Data) throws(AttestationParseError) {
        guard !bytes.isEmpty, bytes.count <= AttestationLimits.maxCertificateBytes else {
            throw AttestationParseError("certificate is empty or larger than \(AttestationLimits.maxCertificateBytes) bytes")
        }
        do {
            let root = try DER.parse(Array(bytes))
            var fields = try DERNodes.sequence(root, "Certificate")
            let tbs = try fields.required("tbsCertificate")
            let outerAlgorithm = try fields.required("signatureAlgorithm")
            let signature = try ASN1BitString(derEncoded: try fields.required("signatureValue"))
            try fields.end("Certificate")
            guard signature.paddingBits == 0 else { throw AttestationParseError("signatureValue has padding bits") }

            var tbsFields = try DERNodes.sequence(tbs, "TBSCertificate")
            var node = try tbsFields.required("serialNumber")
            if node.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                node = try tbsFields.required("serialNumber")  // skip the [0] EXPLICIT version
            }
            guard node.identifier == .integer, case .primitive(let serial) = node.content, !serial.isEmpty else {
                throw AttestationParseError("serialNumber is not an INTEGER")
            }
            let innerAlgorithm = try tbsFields.required("signature")
            guard innerAlgorithm.encodedBytes == outerAlgorithm.encodedBytes else {
                throw AttestationParseError("TBSCertificate.signature differs from signatureAlgorithm (RFC 5280 §4.1.1.2)")
            }
            let issuer = try tbsFields.required("issuer")
            var validity = try DERNodes.sequence(try tbsFields.required("validity"), "Validity")
            let notBefore = try ASN1Time.date(try validity.required("notBefore"))
            let notAfter = try ASN1Time.date(try validity.required("notAfter"))
            try validity.end("Validity")
            let subject = try tbsFields.required("subject")
            let spki = try tbsFields.required("subjectPublicKeyInfo")
            guard issuer.identifier == .sequence, subject.identifier == .sequence, spki.identifier == .sequence else {
                throw AttestationParseError("issuer, subject or subjectPublicKeyInfo is not a SEQUENCE")
            }
            var extensions: [Extension] = []
            while let optional = tbsFields.next() {
                // [1] issuerUniqueID and [2] subjectUniqueID are skipped; [3] holds the extensions.
                guard optional.identifier.tagClass == .contextSpecific, (1...3).contains(optional.identifier.tagNumber)
                else { throw AttestationParseError("TBSCertificate has an unexpected field \(optional.identifier)") }
                if optional.identifier.tagNumber == 3 { extensions = try Self.extensions(optional) }
            }

            self.der = bytes
            self.tbsCertificate = Data(tbs.encodedBytes)
            self.signatureAlgorithm = try Self.algorithm(outerAlgorithm)
            self.signature = Data(signature.bytes)
            self.serialNumber = Data(serial)
            self.issuer = Data(issuer.encodedBytes)
            self.subject = Data(subject.encodedBytes)
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.subjectPublicKeyInfo = Data(spki.encodedBytes)
            self.extensions = extensions
        } catch let error as AttestationParseError {
            throw error
        } catch {
            throw AttestationParseError("certificate is not DER: \(error)")
        }
    }

    /// The extension with `oid`, nil if absent; a second one is an error (RFC 5280 §4.2).
    func uniqueExtension(_ oid: ASN1ObjectIdentifier) throws(AttestationParseError) -> Extension? {
        let matching = extensions.filter { $0.oid == oid }
        guard matching.count <= 1 else { throw AttestationParseError("extension \(oid) appears more than once") }
        return matching.first
    }

    private static func algorithm(_ node: ASN1Node) throws -> ASN1ObjectIdentifier {
        var fields = try DERNodes.sequence(node, "AlgorithmIdentifier")
        return try ASN1ObjectIdentifier(derEncoded: try fields.required("algorithm"))
    }

    private static func extensions(_ wrapper: ASN1Node) throws -> [Extension] {
        var explicit = try DERNodes.constructed(wrapper, "[3] extensions")
        var list = try DERNodes.sequence(try explicit.required("Extensions"), "Extensions")
        try explicit.end("[3] extensions")
        var result: [Extension] = []
        while let node = list.next() {
            var fields = try DERNodes.sequence(node, "Extension")
            let oid = try ASN1ObjectIdentifier(derEncoded: try fields.required("extnID"))
            var valueNode = try fields.required("extnValue")
            var critical = false
            if valueNode.identifier == .boolean {
                critical = try Bool(derEncoded: valueNode)
                valueNode = try fields.required("extnValue")
            }
            let value = try ASN1OctetString(derEncoded: valueNode)
            try fields.end("Extension")
            result.append(Extension(oid: oid, critical: critical, value: Data(value.bytes)))
        }
        return result
    }
}

/// Why a structure could not be read (the reason behind `malformed` / `malformedExtension`).
struct AttestationParseError: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
