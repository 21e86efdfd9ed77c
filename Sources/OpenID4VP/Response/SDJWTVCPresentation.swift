import Foundation
import MDoc
import SDJWT
import TesseraCore
import TesseraJOSE

/// The SD-JWT VC presentation (B.3.6): the Issuer-signed JWT with the Disclosures of the selected claims and
/// nothing else (§6.4, SDJWT's minimal closure), plus a Key Binding JWT when the credential is holder-bound.
enum SDJWTVCPresentation {
    static func make(
        _ credential: SDJWTVCCredential, claims: [DisclosedClaim], query: CredentialQuery, transactionData: [TransactionData],
        clientId: String, nonce: String, clock: any TesseraClock
    ) async throws(OpenID4VPError) -> String {
        let sdJWT: SDJWT
        do {
            sdJWT = try SDJWT(parsing: credential.compactSDJWT)
        } catch {
            throw .presentationFailed("the stored SD-JWT does not parse (\(error))")
        }
        var seen = Set<ClaimsPathPointer>()
        let paths = claims.map(\.path).filter { seen.insert($0).inserted }
        let presented: SDJWT
        let algorithm: SDHashAlgorithm
        do {
            presented = try SDJWTPresentation.presentation(sdJWT, disclosing: paths)
            algorithm = try sdJWT.hashAlgorithm()
        } catch {
            throw .presentationFailed("selecting Disclosures: \(error)")
        }
        // HAIP §6.1.1: a holder-bound credential is always presented with a KB-JWT; B.3: it is required when the
        // query requires holder binding, and transaction data needs it (B.3.3).
        guard credential.hasCryptographicHolderBinding else {
            guard !query.requireCryptographicHolderBinding, transactionData.isEmpty else {
                throw .presentationFailed("the credential has no cnf key for holder binding")
            }
            return presented.compact
        }
        guard let holderKey = credential.holderKey else { throw .presentationFailed("no holder key for the KB-JWT") }
        try HolderKeyBinding.checkConfirmationKey(credential.claims, key: holderKey)
        var payload = JSONObject()
        payload["iat"] = .integer(Int64(clock.now().timeIntervalSince1970.rounded(.down)))
        payload["aud"] = .string(clientId)
        payload["nonce"] = .string(nonce)
        payload["sd_hash"] = .string(algorithm.base64URLDigest(of: presented.sdHashInput))
        if !transactionData.isEmpty {
            payload["transaction_data_hashes"] = .array(transactionData.map { .string($0.sha256Hash) })
            if transactionData.contains(where: { $0.hashAlgorithms != nil }) {
                payload["transaction_data_hashes_alg"] = .string(TransactionData.sha256)
            }
        }
        let kbJWT = try await HolderKeyBinding.sign(payload: payload, key: holderKey)
        return presented.compact + kbJWT.compact
    }
}

extension SDJWTVCCredential {
    /// Reads a stored SD-JWT VC (compact, as issued): `vct`, the claims with every Disclosure applied
    /// (RFC 9901 §7.1), whether `cnf` is present, and the AKIs of the `x5c` chain. The issuer signature is not
    /// checked here — the wallet verified it when storing the credential.
    public init(id: String, compactSDJWT: String, holderKey: (any DeviceKeySigner)?, inheritedTypes: [String] = []) throws(OpenID4VPError) {
        let sdJWT: SDJWT
        let claims: JSONObject
        do {
            sdJWT = try SDJWT(parsing: compactSDJWT)
            claims = try sdJWT.unverifiedClaims()
        } catch {
            throw .presentationFailed("the SD-JWT VC does not parse (\(error))")
        }
        guard let vct = claims["vct"]?.stringValue else { throw .presentationFailed("the SD-JWT VC has no vct") }
        let chain = (try? sdJWT.issuerSignedJWT.x5cCertificates()) ?? []
        self.init(
            id: id, vct: vct, inheritedTypes: inheritedTypes, claims: claims,
            hasCryptographicHolderBinding: claims["cnf"] != nil, authorityKeyIdentifiers: AuthorityKeyIdentifiers.of(chainDER: chain),
            compactSDJWT: compactSDJWT, holderKey: holderKey)
    }
}
