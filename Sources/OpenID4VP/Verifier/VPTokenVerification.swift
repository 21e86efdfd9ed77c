import Foundation
import MDoc
import SDJWT
import TesseraJOSE

/// What a verifier knows about its own request, to check a VP Token against it (§8.6, §14.1.2).
public struct VerifierContext: Sendable {
    /// The full `client_id` the request used.
    public var clientId: String
    /// The `nonce` the request sent; the KB-JWT and the mdoc handover must carry it.
    public var nonce: String
    /// `response_uri` (or `redirect_uri`) of the request, for the mdoc handover (B.2.6.1).
    public var responseURI: String
    /// RFC 7638 thumbprint of the key the response was encrypted to (`direct_post.jwt`), nil otherwise.
    public var encryptionKeyThumbprint: Data?
    /// mdoc issuer trust (IACA anchors).
    public var mdocVerifier: MDocVerifier
    /// SD-JWT VC issuer key source (x5c anchors, metadata, fixed keys).
    public var sdJWTIssuerKeySource: IssuerKeySource
    /// Token Status List check for SD-JWT VCs that carry a `status` claim; nil skips it.
    public var sdJWTStatusCheck: StatusListCheck?
    /// The request's `transaction_data` entries.
    public var transactionData: [TransactionData]
    /// The instant validity is checked at.
    public var instant: Date

    /// A context for one request; `instant` is usually the time the response arrived.
    public init(
        clientId: String, nonce: String, responseURI: String, encryptionKeyThumbprint: Data?, mdocVerifier: MDocVerifier,
        sdJWTIssuerKeySource: IssuerKeySource, sdJWTStatusCheck: StatusListCheck? = nil,
        transactionData: [TransactionData] = [], instant: Date
    ) {
        self.clientId = clientId
        self.nonce = nonce
        self.responseURI = responseURI
        self.encryptionKeyThumbprint = encryptionKeyThumbprint
        self.mdocVerifier = mdocVerifier
        self.sdJWTIssuerKeySource = sdJWTIssuerKeySource
        self.sdJWTStatusCheck = sdJWTStatusCheck
        self.transactionData = transactionData
        self.instant = instant
    }

    /// The handover the wallet must have bound mdoc presentations to.
    public var handover: OpenID4VPHandover {
        OpenID4VPHandover(clientId: clientId, nonce: nonce, jwkThumbprint: encryptionKeyThumbprint, responseURI: responseURI)
    }
}

/// One verified presentation.
public enum VerifiedPresentation: Sendable {
    /// A verified SD-JWT VC presentation, with its processed claims.
    case sdJWTVC(SDJWTVerificationOutcome)
    /// A verified mdoc Document, with its issuer-signed and device-signed elements.
    case mdoc(VerifiedDocument)
}

/// The result of `VPTokenValidation.verify`: the presentations that passed, per query id, and those discarded.
public struct VPTokenVerification: Sendable {
    /// Query id → the presentations that passed, in the order received.
    public let accepted: [String: [VerifiedPresentation]]
    /// Presentations that failed their checks and were discarded (§8.6), with the reason.
    public let discarded: [(queryId: String, error: OpenID4VPError)]
}

extension VPTokenValidation {
    /// §8.6: checks the VP Token's form against the query, verifies every presentation by its format (a failing
    /// one is discarded), then requires the remaining presentations to still satisfy the query (else the whole
    /// VP Token is rejected with `invalidVPToken`).
    public static func verify(
        _ token: VPToken, against query: DCQLQuery, context: VerifierContext
    ) async throws(OpenID4VPError) -> VPTokenVerification {
        try validateStructure(token, against: query)
        var accepted: [String: [VerifiedPresentation]] = [:]
        var kept: [(queryId: String, presentations: [JSONValue])] = []
        var discarded: [(queryId: String, error: OpenID4VPError)] = []
        for entry in token.entries {
            guard let credentialQuery = query.credentialQuery(id: entry.queryId) else { continue }
            var passed: [JSONValue] = []
            for presentation in entry.presentations {
                do {
                    let verified = try await verifyPresentation(presentation, query: credentialQuery, context: context)
                    accepted[entry.queryId, default: []].append(verified)
                    passed.append(presentation)
                } catch {
                    discarded.append((entry.queryId, error))
                }
            }
            if !passed.isEmpty { kept.append((entry.queryId, passed)) }
        }
        guard !kept.isEmpty else {
            let reasons = discarded.map { "\($0.queryId): \($0.error.description)" }.joined(separator: "; ")
            throw .invalidVPToken("no presentation passed its checks (\(reasons))")
        }
        do {
            try validateStructure(try VPToken(entries: kept), against: query)
        } catch {
            throw .invalidVPToken("after discarding failed presentations: \(error.description)")
        }
        return VPTokenVerification(accepted: accepted, discarded: discarded)
    }

    static func verifyPresentation(
        _ presentation: JSONValue, query: CredentialQuery, context: VerifierContext
    ) async throws(OpenID4VPError) -> VerifiedPresentation {
        switch query.format {
        case .sdJWTVC:
            return .sdJWTVC(
                try await verifySDJWTPresentation(
                    presentation, query: query, clientId: context.clientId, nonce: context.nonce,
                    issuerKeySource: context.sdJWTIssuerKeySource, statusCheck: context.sdJWTStatusCheck,
                    transactionData: context.transactionData.filter { $0.credentialIds.contains(query.id) }, at: context.instant))
        case .mdoc:
            return .mdoc(
                try await verifyMDocPresentation(
                    presentation, query: query, handover: context.handover, verifier: context.mdocVerifier, at: context.instant))
        default:
            throw .invalidPresentation(queryId: query.id, reason: "format \(query.format) is not supported")
        }
    }
}
