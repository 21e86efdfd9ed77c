import Foundation
import MDoc
import TesseraCBOR
import TesseraJOSE
import TesseraCore

/// Builds the Authorization Response for the End-User's selection (§8.1): a `vp_token` keyed by credential
/// query id with an array of presentations each, and `state` echoed.
///
/// - SD-JWT VC (B.3.6): the Disclosures for the selected claims only, and — when the credential has a `cnf` key
///   (HAIP §6.1.1; B.3: required when the query requires holder binding) — a KB-JWT with `aud` = the full
///   `client_id`, `nonce`, `iat`, `sd_hash` and the `transaction_data_hashes` of the entries naming the query.
/// - mdoc (B.2.5, HAIP §5.3.1): one DeviceResponse per presentation, signed over
///   `SessionTranscript = [null, null, OpenID4VPHandover]` (B.2.6.1) whose JWK thumbprint is the response
///   encryption key's for `direct_post.jwt` and null otherwise.
///
/// - Throws: `requiredCredentialsUnavailable` for an empty selection (the wallet then answers `access_denied`,
///   never an empty or partial `vp_token`); `invalidSelection` when the selection was made for another query.
public func createAuthorizationResponse(
    request: ResolvedAuthorizationRequest, selectedCredentials: DCQLSelection, walletConfig: WalletConfiguration
) async throws(OpenID4VPError) -> AuthorizationResponse {
    guard selectedCredentials.query == request.dcqlQuery else {
        throw .invalidSelection("the selection was made for another DCQL query")
    }
    guard !selectedCredentials.credentials.isEmpty else { throw .requiredCredentialsUnavailable }
    var entries: [(queryId: String, presentations: [JSONValue])] = []
    for queryId in selectedCredentials.queryIds {
        guard let query = request.dcqlQuery.credentialQuery(id: queryId) else {
            throw .invalidSelection("\(queryId) is not a credential query of the request")
        }
        var presentations: [JSONValue] = []
        for selected in selectedCredentials.credentials where selected.queryId == queryId {
            presentations.append(
                .string(try await PresentationBuilder.presentation(of: selected, query: query, request: request, config: walletConfig)))
        }
        entries.append((queryId, presentations))
    }
    return .vpToken(try VPToken(entries: entries), state: request.state)
}

enum PresentationBuilder {
    static func presentation(
        of selected: SelectedCredential, query: CredentialQuery, request: ResolvedAuthorizationRequest,
        config: WalletConfiguration
    ) async throws(OpenID4VPError) -> String {
        switch selected.credential {
        case .sdJWTVC(let credential):
            return try await SDJWTVCPresentation.make(
                credential, claims: selected.candidate.claims, query: query,
                transactionData: request.transactionData(forQuery: query.id), clientId: request.clientId,
                nonce: request.nonce, clock: config.clock)
        case .mdoc(let credential):
            return try await mdocPresentation(credential, claims: selected.candidate.claims, request: request)
        }
    }

    /// A base64url DeviceResponse (B.2.5) with the selected elements, bound to the OpenID4VPHandover.
    static func mdocPresentation(
        _ credential: MDocCredential, claims: [DisclosedClaim], request: ResolvedAuthorizationRequest
    ) async throws(OpenID4VPError) -> String {
        var nameSpaces: [String: [String: Bool]] = [:]
        var selection: [String: Set<String>] = [:]
        for claim in claims {
            guard let (namespace, element) = claim.path.mdocElement else { continue }
            nameSpaces[namespace, default: [:]][element] = claim.intentToRetain ?? false
            selection[namespace, default: []].insert(element)
        }
        let items: EncodedCBOR<ItemsRequest>
        do {
            items = try EncodedCBOR(encoding: ItemsRequest(docType: credential.docType, nameSpaces: nameSpaces))
        } catch {
            throw .presentationFailed("ItemsRequest: \(error)")
        }
        let handover = OpenID4VPHandover(
            clientId: request.clientId, nonce: request.nonce, jwkThumbprint: request.destination.encryption?.keyThumbprint,
            responseURI: request.destination.uri)
        do {
            let response = try await DeviceResponseGenerator.generate(
                request: DeviceRequest(docRequests: [DocRequest(itemsRequest: items)]), credentials: [credential.stored],
                selection: [credential.docType: selection], sessionTranscript: handover.sessionTranscript)
            guard response.documents?.count == 1 else { throw MDocError.invalidStructure(structure: "DeviceResponse", reason: "no document") }
            return Base64URL.encode(try response.encoded())
        } catch {
            throw .presentationFailed("mdoc DeviceResponse: \(error)")
        }
    }
}
