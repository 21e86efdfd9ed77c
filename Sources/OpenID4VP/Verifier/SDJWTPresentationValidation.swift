import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE

extension VPTokenValidation {
    /// Verifies an SD-JWT VC presentation (B.3): SDJWT's verification (issuer signature through
    /// `issuerKeySources`, `typ` `dc+sd-jwt`, `vct` among the query's `vct_values`, Disclosures, validity) with a
    /// KB-JWT bound to `client_id` (the full identifier, §14.10) and `nonce` when the query requires holder
    /// binding (§14.1.2); the disclosed claims satisfy the query's `claims` / `claim_sets` / `values`; and the
    /// KB-JWT's `transaction_data_hashes` cover exactly the entries naming the query (B.3.3.1).
    public static func verifySDJWTPresentation(
        _ presentation: JSONValue, query: CredentialQuery, clientId: String, nonce: String,
        issuerKeySource: IssuerKeySource, statusCheck: StatusListCheck? = nil, transactionData: [TransactionData] = [],
        at instant: Date
    ) async throws(OpenID4VPError) -> SDJWTVerificationOutcome {
        guard let text = presentation.stringValue else {
            throw .invalidPresentation(queryId: query.id, reason: "not a string")
        }
        // A KB-JWT that is present is always checked against client_id and nonce; it is required when the query
        // asks for holder binding (§14.1.2) or transaction data needs it (B.3.3).
        let policy = SDJWTVerificationPolicy.sdJWTVC(
            issuerKeySource: issuerKeySource, expectedAudience: clientId, expectedNonce: nonce,
            requireKeyBinding: query.requireCryptographicHolderBinding || !transactionData.isEmpty, statusCheck: statusCheck)
        let outcome = await SDJWTVerifier(policy: policy, clock: FixedClock(instant)).verify(text)
        guard outcome.isValid else {
            throw .invalidPresentation(queryId: query.id, reason: outcome.errors.map(\.description).joined(separator: "; "))
        }
        // The claims the query asks for are disclosed (§6.4.1, §8.6 step 2.2); trust is the verifier's own matter.
        var claimsOnly = query
        claimsOnly.trustedAuthorities = nil
        let disclosed = WalletCredential.sdJWTVC(
            SDJWTVCCredential(
                id: query.id, vct: outcome.processedClaims["vct"]?.stringValue ?? "", claims: outcome.processedClaims,
                hasCryptographicHolderBinding: outcome.processedClaims["cnf"] != nil, compactSDJWT: text, holderKey: nil))
        if let vctValues = query.vctValues, !vctValues.contains(outcome.processedClaims["vct"]?.stringValue ?? "") {
            throw .invalidPresentation(queryId: query.id, reason: "vct is not among the query's vct_values")
        }
        guard DCQLMatcher.candidate(for: claimsOnly, credential: disclosed) != nil else {
            throw .invalidPresentation(queryId: query.id, reason: "the disclosed claims do not satisfy the query")
        }
        if !transactionData.isEmpty {
            let kbClaims = try? outcome.sdJWT?.keyBindingJWT?.payloadJSON()
            let hashes = kbClaims?["transaction_data_hashes"]?.arrayValue?.compactMap(\.stringValue)
            guard hashes == transactionData.map(\.sha256Hash) else {
                throw .invalidPresentation(queryId: query.id, reason: "transaction_data_hashes do not cover the transaction data")
            }
        }
        return outcome
    }
}
