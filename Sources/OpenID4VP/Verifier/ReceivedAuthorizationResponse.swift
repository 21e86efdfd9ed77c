import Foundation
import TesseraHTTP
import MDoc
import TesseraCBOR
import TesseraJOSE
import TesseraCore

/// An Authorization Response as the verifier's Response URI receives it (§8.2, §8.3.1).
public struct ReceivedAuthorizationResponse: Sendable {
    /// The response parameters (decrypted for `direct_post.jwt`).
    public let response: AuthorizationResponse
    /// The JWE the response came in, for `direct_post.jwt`.
    public let encryptedResponse: CompactJWE?
    /// The thumbprint of the verifier key the response was encrypted to (for the mdoc handover, B.2.6.1).
    public let encryptionKeyThumbprint: Data?

    /// `state` as the wallet echoed it; compare it with the request's before trusting the response.
    public var state: String? {
        switch response {
        case .vpToken(_, let state): return state
        case .error(let error): return error.state
        }
    }

    /// Parses a form-encoded POST body. With `decryptionKey` the body must be `response=<JWE>` (§8.3.1)
    /// encrypted to that key (`kid`, when present, must be the key's) — or, when `acceptsClearError`, an error
    /// response in the clear (a wallet that cannot encrypt may still say why, §8.3.1); without it, plain
    /// parameters (§8.2). The body is decoded once either way.
    public static func parse(
        formBody: Data, decryptionKey: JWEKeyAgreementKey? = nil, acceptsClearError: Bool = false,
        limits: OpenID4VPLimits = .default
    ) throws(OpenID4VPError) -> ReceivedAuthorizationResponse {
        guard formBody.count <= limits.maxInvocationURILength * 4,
            let text = String(validating: formBody, as: UTF8.self)
        else { throw .invalidAuthorizationResponse("the body is not UTF-8 text within the size limit") }
        let pairs: [(name: String, value: String)]
        do {
            pairs = try FormURLEncoding.parameters(text)
        } catch {
            throw .invalidAuthorizationResponse("the body is not form-encoded (\(error))")
        }
        var parameters = JSONObject()
        for pair in pairs { parameters[pair.name] = .string(pair.value) }
        guard let key = decryptionKey else {
            if parameters["response"] != nil { throw .invalidAuthorizationResponse("an encrypted response was not expected") }
            return ReceivedAuthorizationResponse(
                response: try responseParameters(parameters, limits: limits), encryptedResponse: nil, encryptionKeyThumbprint: nil)
        }
        if acceptsClearError, parameters["response"] == nil, parameters["error"] != nil,
            case .error(let error) = try responseParameters(parameters, limits: limits)
        {
            return ReceivedAuthorizationResponse(response: .error(error), encryptedResponse: nil, encryptionKeyThumbprint: nil)
        }
        guard let compact = parameters["response"]?.stringValue, parameters.count == 1 else {
            throw .invalidAuthorizationResponse("direct_post.jwt expects exactly the response parameter")
        }
        let jwe: CompactJWE
        let plaintext: Data
        let publicJWK = key.publicJWK
        do {
            jwe = try CompactJWE(parsing: compact, limits: limits.jose)
            if let kid = jwe.keyID, let expected = publicJWK.kid, kid != expected {
                throw JOSEError.invalidHeaderParameter("kid")
            }
            plaintext = try jwe.decrypt(with: key)
        } catch {
            throw .invalidAuthorizationResponse("the response JWE does not decrypt (\(error))")
        }
        guard let payload = (try? JSONValue.parse(plaintext, limits: limits.json))?.objectValue else {
            throw .invalidAuthorizationResponse("the decrypted response is not a JSON object")
        }
        return ReceivedAuthorizationResponse(
            response: try responseParameters(payload, limits: limits), encryptedResponse: jwe,
            encryptionKeyThumbprint: publicJWK.thumbprint())
    }

    /// `vp_token` (a JSON object, or JSON text in a form) and `state`, or `error` (§8.1, §8.5).
    static func responseParameters(_ parameters: JSONObject, limits: OpenID4VPLimits) throws(OpenID4VPError) -> AuthorizationResponse {
        let state = parameters["state"]?.stringValue
        if let error = parameters["error"] {
            guard let code = error.stringValue else { throw .invalidAuthorizationResponse("error is not a string") }
            let errorCode = AuthorizationErrorCode(rawValue: code)
            guard errorCode.isWellFormed else { throw .invalidAuthorizationResponse("error holds characters RFC 6749 forbids") }
            return .error(AuthorizationErrorResponse(
                error: errorCode, errorDescription: parameters["error_description"]?.stringValue, state: state))
        }
        guard let token = AuthorizationRequestJSON.object(parameters["vp_token"], limits: limits.json) else {
            throw .invalidAuthorizationResponse("vp_token is missing or not a JSON object")
        }
        return .vpToken(try VPToken(json: token), state: state)
    }
}

/// Checks of a VP Token against the request that do not need the presentations opened (§8.6 step 1 and 3,
/// §6.4): every key is a credential query id; one presentation unless `multiple`; every required credential set
/// has a fully answered option; nothing outside a fully answered option.
public enum VPTokenValidation {
    /// Checks `token` against `query`: known query ids, one presentation unless `multiple`, credential sets fully
    /// answered (§6.4, §8.6). No presentation is opened.
    /// - Throws: `OpenID4VPError.invalidVPToken` naming the first rule broken.
    public static func validateStructure(_ token: VPToken, against query: DCQLQuery) throws(OpenID4VPError) {
        for entry in token.entries {
            guard let credentialQuery = query.credentialQuery(id: entry.queryId) else {
                throw .invalidVPToken("\(entry.queryId) is not a credential query of the request")
            }
            guard credentialQuery.multiple || entry.presentations.count == 1 else {
                throw .invalidVPToken("\(entry.presentations.count) presentations for \(entry.queryId), which does not allow multiple")
            }
        }
        let answered = Set(token.entries.map(\.queryId))
        var covered = Set<String>()
        for (index, set) in query.effectiveCredentialSets.enumerated() {
            let complete = set.options.filter { Set($0).isSubset(of: answered) }
            if set.required && complete.isEmpty {
                throw .invalidVPToken("required credential set \(index) is not satisfied")
            }
            for option in complete { covered.formUnion(option) }
        }
        if let stray = answered.subtracting(covered).sorted().first {
            throw .invalidVPToken("\(stray) answers no fully satisfied credential set option")
        }
    }

    /// Verifies an mdoc presentation (B.2): a base64url DeviceResponse holding one Document of the queried
    /// docType, verified by MDoc (issuer chain, digests, validity, DeviceAuth over the OpenID4VPHandover
    /// transcript) with every queried element present (the query's claims as the DeviceRequest).
    public static func verifyMDocPresentation(
        _ presentation: JSONValue, query: CredentialQuery, handover: OpenID4VPHandover, verifier: MDocVerifier, at instant: Date
    ) async throws(OpenID4VPError) -> VerifiedDocument {
        guard let text = presentation.stringValue, let bytes = try? Base64URL.decode(text) else {
            throw .invalidPresentation(queryId: query.id, reason: "not a base64url string")
        }
        let response: DeviceResponse
        do {
            response = try DeviceResponse(bytes: bytes)
        } catch {
            throw .invalidPresentation(queryId: query.id, reason: "not a DeviceResponse (\(error))")
        }
        guard let docType = query.doctypeValue else { throw .invalidPresentation(queryId: query.id, reason: "not an mdoc query") }
        guard let documents = response.documents, documents.count == 1, documents[0].docType == docType else {
            throw .invalidPresentation(queryId: query.id, reason: "the DeviceResponse does not hold exactly one \(docType)")
        }
        var nameSpaces: [String: [String: Bool]] = [:]
        for claim in query.claims ?? [] {
            guard let (namespace, element) = claim.path.mdocElement else { continue }
            nameSpaces[namespace, default: [:]][element] = claim.intentToRetain ?? false
        }
        let deviceRequest: DeviceRequest
        do {
            deviceRequest = DeviceRequest(docRequests: [
                DocRequest(itemsRequest: try EncodedCBOR(encoding: ItemsRequest(docType: docType, nameSpaces: nameSpaces)))
            ])
        } catch {
            throw .invalidPresentation(queryId: query.id, reason: "cannot encode the expected ItemsRequest")
        }
        let outcome = await verifier.verify(
            response, request: query.claimSets == nil ? deviceRequest : nil, sessionTranscript: handover.sessionTranscript,
            at: instant)
        guard outcome.isValid, let document = outcome.documents.first else {
            throw .invalidPresentation(
                queryId: query.id, reason: outcome.allErrors.map(\.description).joined(separator: "; "))
        }
        if let claimSets = query.claimSets, let claims = query.claims {
            // §6.4.1: one option of claim_sets must be fully present.
            let present = Set(claims.indices.filter { index in
                guard let (namespace, element) = claims[index].path.mdocElement else { return false }
                return document.issuerSignedElements[namespace]?[element] != nil
            }.compactMap { claims[$0].id })
            guard claimSets.contains(where: { Set($0).isSubset(of: present) }) else {
                throw .invalidPresentation(queryId: query.id, reason: "no claim_sets option is fully present")
            }
        }
        return document
    }
}
