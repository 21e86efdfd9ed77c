import Crypto
import Foundation
import OpenID4VP
import ServiceSupport
import TesseraCore
import TesseraJOSE

extension TransactionService {
    /// What `POST /response/{id}` answers.
    enum ResponseOutcome: Sendable {
        /// Verified: the wallet is sent to `redirect_uri`, which carries a fresh response code (§8.2).
        case verified(redirectURI: String)
        /// The wallet declined or failed (§8.5); recorded, answered with an empty object.
        case walletError
    }

    /// `POST /response/{id}` (§8.2 `direct_post`, §8.3 `direct_post.jwt`), checked as §8.6 says. The response
    /// must carry the transaction's `state` (compared in constant time) before anything is consumed, so a stranger
    /// who learns the response URI cannot spoil a transaction. The verdict then consumes the state and records the
    /// result in one conditional statement (`TransactionStore.complete` / `fail`); of two concurrent responses
    /// that both verify, only the first verdict is written and the other is answered `transactionClosed`.
    func receive(id: String, body: Data) async throws(APIError) -> ResponseOutcome {
        guard let transaction = try await store.find(id) else { throw .notFound("no transaction \(id)") }
        let now = configuration.clock.now()
        guard transaction.status == TransactionStatus.pending.rawValue, transaction.expiresAt > now.timeIntervalSince1970 else {
            throw Self.closed
        }
        let received = try parse(body, for: transaction)
        guard let state = received.state, ConstantTime.equal(Data(state.utf8), Data(transaction.state.utf8)) else {
            throw .invalidRequest("state is missing or does not match the request")
        }
        switch received.response {
        case .error(let error):
            guard try await store.fail(id, now: now, error: error.error.rawValue, description: error.errorDescription) else {
                throw Self.closed
            }
            ServiceMetrics.outcome("presentation", result: "wallet_error")
            return .walletError
        case .vpToken(let token, _):
            let claims: JSONObject
            do {
                claims = try await verify(token, transaction: transaction, thumbprint: received.encryptionKeyThumbprint, now: now)
            } catch {
                guard try await store.fail(id, now: now, error: "invalid_request", description: error.errorDescription) else {
                    throw Self.closed
                }
                ServiceMetrics.outcome("presentation", result: "invalid_presentation")
                throw error
            }
            let code = Base64URL.encode(configuration.random.bytes(32))
            guard try await store.complete(id, now: now, result: String(decoding: claims.serialized(), as: UTF8.self), responseCode: code) else {
                throw Self.closed
            }
            ServiceMetrics.outcome("presentation", result: "ok")
            return .verified(redirectURI: baseURL + "/?transaction_id=" + id + "&response_code=" + code)
        }
    }

    private static let closed = APIError.transactionClosed("the transaction already has its response or has expired")

    private func parse(_ body: Data, for transaction: VerifierTransaction) throws(APIError) -> ReceivedAuthorizationResponse {
        var key: JWEKeyAgreementKey?
        if let bytes = transaction.encryptionKey {
            guard let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: bytes) else {
                throw .server("the stored encryption key is unusable")
            }
            key = .p256(privateKey)
        }
        do {
            // §8.3.1: a wallet that cannot encrypt may still send an error response in the clear.
            let received = try ReceivedAuthorizationResponse.parse(formBody: body, decryptionKey: key, acceptsClearError: true)
            // §8.3: the JWE names the key of client_metadata.jwks it was encrypted to.
            if let kid = received.encryptedResponse?.keyID, kid != Self.encryptionKeyID(transactionID: transaction.id ?? "") {
                throw APIError.invalidRequest("the response is encrypted to an unknown kid")
            }
            return received
        } catch let error as APIError {
            throw error
        } catch let error as OpenID4VPError {
            throw .invalidRequest(error.description)
        } catch {
            throw .invalidRequest("the response could not be read")
        }
    }

    /// §8.6: every presentation verified by its format against the request's client_id, nonce, response URI
    /// and encryption key (mdoc handover), issuers checked against the trust anchors and status lists; the
    /// presentations that pass must still satisfy the DCQL query. Returns the `verified_claims` object.
    private func verify(
        _ token: VPToken, transaction: VerifierTransaction, thumbprint: Data?, now: Date
    ) async throws(APIError) -> JSONObject {
        let query: DCQLQuery
        do {
            query = try DCQLQuery(parsing: transaction.dcqlQuery)
        } catch {
            throw .server("the stored DCQL query no longer parses")
        }
        let context = VerifierContext(
            clientId: configuration.identity.clientId, nonce: transaction.nonce,
            responseURI: baseURL + "/response/" + (transaction.id ?? ""), encryptionKeyThumbprint: thumbprint,
            mdocVerifier: verifiers.mdoc, sdJWTIssuerKeySource: verifiers.sdJWTIssuerKeySource,
            sdJWTStatusCheck: verifiers.sdJWTStatusCheck, instant: now)
        let verification: VPTokenVerification
        do {
            verification = try await VPTokenValidation.verify(token, against: query, context: context)
        } catch {
            throw .invalidRequest(error.description)
        }
        return VerifiedClaims.json(verification)
    }
}
