import SwiftASN1
import X509

/// The cRLDistributionPoints extension (RFC 5280 §4.2.1.13), reduced to what ISO/IEC 18013-5 uses: each
/// distribution point's `fullName` (the `reasons` and `cRLIssuer` fields are skipped when reading and never written).
///
/// Annex B lists it, non-critical, for the IACA root (B.1.2) and Document Signer (B.1.3) certificates with a URI.
public struct CRLDistributionPoints: Sendable, Hashable {
    /// The `fullName` names of every distribution point, flattened in order.
    public var fullNames: [GeneralName]

    public init(fullNames: [GeneralName]) {
        self.fullNames = fullNames
    }

    /// One distribution point whose full name is the given URI.
    public init(uri: String) {
        self.fullNames = [.uniformResourceIdentifier(uri)]
    }

    /// Decodes the extension value.
    public init(_ ext: Certificate.Extension) throws {
        guard ext.oid == .AdditionalExtensionID.crlDistributionPoints else {
            throw CertificateError.incorrectOIDForExtension(
                reason: "Expected \(ASN1ObjectIdentifier.AdditionalExtensionID.crlDistributionPoints), got \(ext.oid)"
            )
        }
        let root = try DER.parse(ext.value)
        guard root.identifier == .sequence, case .constructed(let points) = root.content else {
            throw ASN1Error.unexpectedFieldType(root.identifier)
        }
        var names: [GeneralName] = []
        for point in points {
            guard point.identifier == .sequence, case .constructed(let fields) = point.content else {
                throw ASN1Error.unexpectedFieldType(point.identifier)
            }
            // DistributionPoint ::= SEQUENCE { distributionPoint [0] DistributionPointName OPTIONAL, ... }
            for field in fields where field.identifier == Self.tag0 {
                // DistributionPointName is a CHOICE, so [0] is explicit around it.
                guard case .constructed(let choice) = field.content else {
                    throw ASN1Error.invalidASN1Object(reason: "distributionPoint is not constructed")
                }
                for name in choice where name.identifier == Self.tag0 {
                    // fullName [0] IMPLICIT GeneralNames
                    names += try DER.sequence(of: GeneralName.self, identifier: Self.tag0, rootNode: name)
                }
            }
        }
        self.fullNames = names
    }

    /// Whether one of the names is a URI (Annex B asks for the CRL location as a URI).
    var hasURI: Bool {
        fullNames.contains { if case .uniformResourceIdentifier = $0 { return true } else { return false } }
    }

    private static let tag0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
}

extension CRLDistributionPoints: CertificateExtensionConvertible {
    /// Writes one DistributionPoint per full name, non-critical.
    public func makeCertificateExtension() throws -> Certificate.Extension {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { points in
            for name in fullNames {
                try points.appendConstructedNode(identifier: .sequence) { point in
                    try point.appendConstructedNode(identifier: Self.tag0) { choice in
                        try choice.serializeSequenceOf([name], identifier: Self.tag0)
                    }
                }
            }
        }
        return Certificate.Extension(
            oid: .AdditionalExtensionID.crlDistributionPoints,
            critical: false,
            value: serializer.serializedBytes[...]
        )
    }
}
