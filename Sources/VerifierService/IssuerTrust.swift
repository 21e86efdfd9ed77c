import Foundation
import MDoc
import SDJWT
import SwiftASN1
import X509

/// The issuers whose credentials the verifier accepts: IACA roots for mdoc (ISO 18013-5 Annex B) and x5c trust
/// anchors for SD-JWT VC issuers (SD-JWT VC §3.5), plus how to fetch Token Status Lists.
public struct IssuerTrust: Sendable {
    public var iacaRoots: [Certificate]
    public var sdJWTAnchors: [Certificate]
    /// Fetches Status List Tokens for SD-JWT VCs with a `status` claim; nil skips the status check.
    public var statusListFetcher: (any StatusListFetcher)?

    public init(iacaRoots: [Certificate], sdJWTAnchors: [Certificate], statusListFetcher: (any StatusListFetcher)? = nil) {
        self.iacaRoots = iacaRoots
        self.sdJWTAnchors = sdJWTAnchors
        self.statusListFetcher = statusListFetcher
    }

    /// Reads every PEM certificate in the files given. Each anchor serves both formats: a verifier trusts an
    /// issuer, not a format.
    public static func pemFiles(_ paths: [String], statusListFetcher: (any StatusListFetcher)? = nil) throws(VerifierServiceError) -> IssuerTrust {
        var anchors: [Certificate] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw .configuration("cannot read \(path)")
            }
            do {
                anchors += try PEMDocument.parseMultiple(pemString: text).filter { $0.discriminator == "CERTIFICATE" }
                    .map { try Certificate(derEncoded: $0.derBytes) }
            } catch {
                throw .configuration("\(path) holds no valid PEM certificate")
            }
        }
        guard !anchors.isEmpty else { throw .configuration("no trusted issuer certificates were given") }
        return IssuerTrust(iacaRoots: anchors, sdJWTAnchors: anchors, statusListFetcher: statusListFetcher)
    }
}
