import Crypto
import Fluent
import Foundation
import OpenID4VP
import TesseraCore
import TesseraJOSE

/// The verifier's OpenID4VP logic behind the HTTP routes: creating transactions, serving Request Objects,
/// taking responses, handing out results.
struct TransactionService: Sendable {
    let configuration: VerifierServiceConfiguration
    /// Built once from `configuration.trust` when the service starts.
    let verifiers: ResponseVerifiers
    /// Shared by the requests of this instance.
    let purgeSchedule: PurgeSchedule
    let store: TransactionStore
    let baseURL: String

    struct Created: Sendable {
        let transaction: VerifierTransaction
        let authorizationRequestURI: String
        let requestURI: String
    }

    /// `POST /api/transactions`: a DCQL query (given or from a template), a fresh nonce, state and, for
    /// `direct_post.jwt`, a fresh response encryption key (§8.3: per request).
    func create(body: JSONObject) async throws(APIError) -> Created {
        let queryJSON: JSONObject
        switch (body["dcql_query"], body["template"]) {
        case (.some(let query), nil):
            guard let object = query.objectValue else { throw .invalidRequest("dcql_query must be a JSON object") }
            queryJSON = object
        case (nil, .some(let name)):
            guard let template = name.stringValue.flatMap(PresentationTemplate.init(rawValue:)) else {
                throw .invalidRequest("template must be one of \(PresentationTemplate.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            queryJSON = template.dcqlQuery
        default:
            throw .invalidRequest("give exactly one of dcql_query and template")
        }
        do {
            _ = try DCQLQuery(json: queryJSON)
        } catch {
            throw .invalidRequest("dcql_query is invalid: \(error.description)")
        }
        let mode: ResponseMode
        switch body["response_mode"] {
        case nil: mode = .directPostJWT
        case .some(let value):
            guard let parsed = value.stringValue.flatMap(ResponseMode.init(rawValue:)), parsed.isDirectPost else {
                throw .invalidRequest("response_mode must be direct_post or direct_post.jwt")
            }
            mode = parsed
        }
        let random = configuration.random
        let now = configuration.clock.now()
        let transaction = VerifierTransaction()
        transaction.id = Base64URL.encode(random.bytes(16))
        transaction.createdAt = now.timeIntervalSince1970
        transaction.expiresAt = now.addingTimeInterval(configuration.transactionLifetime).timeIntervalSince1970
        transaction.status = TransactionStatus.pending.rawValue
        transaction.dcqlQuery = String(decoding: queryJSON.serialized(), as: UTF8.self)
        transaction.nonce = VerifierRequests.freshValue(random: random)
        transaction.state = VerifierRequests.freshValue(random: random)
        transaction.responseMode = mode.rawValue
        if mode.isEncrypted {
            guard case .p256(let key) = try? JWEKeyAgreementKey.generate(.p256, random: random) else {
                throw .server("cannot generate the response encryption key")
            }
            transaction.encryptionKey = key.rawRepresentation
        }
        transaction.requestFetches = 0
        transaction.responseCodeUsed = false
        if purgeSchedule.claim(at: now) { try await store.purge(olderThan: now.addingTimeInterval(-86_400)) }
        try await store.insert(transaction)
        let id = transaction.id ?? ""
        return Created(
            transaction: transaction, authorizationRequestURI: authorizationRequestURI(transactionID: id),
            requestURI: baseURL + "/request/" + id)
    }

    /// The `openid4vp://` link (§5.4, by reference, `request_uri_method=post` so the wallet may send its
    /// metadata and a `wallet_nonce`).
    func authorizationRequestURI(transactionID id: String) -> String {
        VerifierRequests.invocationURI(
            clientId: configuration.identity.clientId, requestURI: baseURL + "/request/" + id, method: .post)
    }

    /// The status shown to clients: `processing` is still `pending`; a pending transaction past its expiry is
    /// `expired`.
    func publicStatus(of transaction: VerifierTransaction) -> TransactionStatus {
        switch TransactionStatus(rawValue: transaction.status) ?? .failed {
        case .pending, .processing:
            return transaction.expiresAt <= configuration.clock.now().timeIntervalSince1970 ? .expired : .pending
        case let status: return status
        }
    }

    /// `GET|POST /request/{id}` (§5.10): the signed Request Object, fetchable while the transaction is pending.
    /// With POST, `wallet_nonce` is echoed (§5.10.1) and `wallet_metadata` must be a JSON object when given.
    func requestObject(id: String, walletNonce: String?) async throws(APIError) -> String {
        let now = configuration.clock.now()
        guard let transaction = try await store.recordRequestFetch(id, now: now) else {
            throw .notFound("no pending transaction \(id)")
        }
        let query: DCQLQuery
        do {
            query = try DCQLQuery(parsing: transaction.dcqlQuery)
        } catch {
            throw .server("the stored DCQL query no longer parses")
        }
        var metadata: JSONObject = [
            "vp_formats_supported": [
                "dc+sd-jwt": ["sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"]],
                "mso_mdoc": ["issuerauth_alg_values": [-7], "deviceauth_alg_values": [-7]],
            ]
        ]
        if let keyBytes = transaction.encryptionKey {
            guard let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: keyBytes) else {
                throw .server("the stored encryption key is unusable")
            }
            var jwk = JWK(publicKey: key.publicKey).jsonObject
            jwk["kid"] = .string(Self.encryptionKeyID(transactionID: id))
            jwk["use"] = "enc"
            jwk["alg"] = "ECDH-ES"
            metadata["jwks"] = ["keys": [.object(jwk)]]
            metadata["encrypted_response_enc_values_supported"] = ["A128GCM", "A256GCM"]
        }
        guard let mode = ResponseMode(rawValue: transaction.responseMode) else { throw .server("unknown stored response mode") }
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        do {
            let request = try AuthorizationRequest(
                clientId: configuration.identity.clientId, responseMode: mode, responseURI: baseURL + "/response/" + id,
                nonce: transaction.nonce, state: transaction.state, dcqlQuery: query, clientMetadata: metadata,
                walletNonce: walletNonce)
            return try VerifierRequests.signRequestObject(
                request, key: .es256(configuration.identity.signingKey), x5c: configuration.identity.certificateChain,
                extraClaims: ["iat": .integer(issuedAt), "exp": .integer(issuedAt + 300)])
        } catch {
            throw .server("signing the Request Object failed")
        }
    }

    static func encryptionKeyID(transactionID: String) -> String { "enc-" + transactionID }
}
