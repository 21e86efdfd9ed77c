import Foundation
import MDoc
import OpenID4VP
import SDJWT

/// What the End-User agreed to share with a remote verifier.
public enum RemoteConsent: Sendable, Equatable {
    /// Everything the request asks for (the verifier's preferred credentials).
    case all
    /// Nothing: the wallet declines (`access_denied`, §8.5).
    case none
    /// Only these claims (by name: the last component of the claim's path, e.g. `given_name`, `age_over_18`).
    case claims(Set<String>)
}

/// The outcome of one remote presentation, for a consent screen or the CLI.
public struct RemotePresentationOutcome: Sendable {
    public let verifier: VerifierInfo
    /// Credential query id → ids of the wallet credentials presented (empty when declined).
    public let presented: [String: [String]]
    /// The claims each presented credential disclosed (credential query id → claim paths).
    public let disclosed: [String: [ClaimsPathPointer]]
    /// What the verifier answered; nil when the wallet declined and had to stay silent (§8.5: error responses
    /// only to an authenticated verifier).
    public let submission: SubmissionResult?
    public var declined: Bool { presented.isEmpty }
}

/// The OpenID4VP 1.0 holder flow over the wallet's stores (parse → resolve → match → consent → create →
/// submit, in the shape of oid4vc-ts), used by `tessera wallet present` and by apps.
public enum RemotePresentation {
    /// The wallet's records as DCQL sees them: SD-JWT VCs with their claims, mdocs with their elements, each
    /// with its device key. A record that cannot be read fails the whole load (the wallet is damaged).
    public static func walletCredentials(store: any CredentialStore, keys: any KeyStore) throws -> [WalletCredential] {
        try store.records().map { record in
            switch record.format {
            case CredentialRecord.sdJWTFormat:
                return .sdJWTVC(
                    try SDJWTVCCredential(
                        id: record.id, compactSDJWT: String(decoding: record.data, as: UTF8.self),
                        holderKey: try keys.deviceKey(id: record.keyID)))
            default:
                return .mdoc(MDocCredential(id: record.id, stored: try store.mdoc(record, keys: keys)))
            }
        }
    }

    /// Runs the whole flow for an invocation URI. `consent` narrows what may be disclosed; when the required
    /// credential sets cannot be met within it, the wallet declines with `access_denied` (§6.4.2, §8.5).
    public static func present(
        requestURI: String, credentials: [WalletCredential], consent: RemoteConsent, walletConfig: WalletConfiguration
    ) async throws(OpenID4VPError) -> RemotePresentationOutcome {
        let parsed = try await parseAuthorizationRequest(requestUri: requestURI, walletConfig: walletConfig)
        let request = try await resolveAuthorizationRequest(parsed, walletConfig: walletConfig)
        let match = request.match(credentials)
        let selection: DCQLSelection?
        switch consent {
        case .none:
            selection = nil
        case .all:
            selection = try? match.preferredSelection()
        case .claims(let names):
            selection = try? match.restricted { claim in
                guard case .key(let name)? = claim.path.components.last else { return false }
                return names.contains(name)
            }.preferredSelection()
        }
        guard let selection else {
            // The wallet answers an authenticated verifier with access_denied and stays silent otherwise.
            guard request.verifier.isAuthenticated else {
                return RemotePresentationOutcome(verifier: request.verifier, presented: [:], disclosed: [:], submission: nil)
            }
            let denial = AuthorizationResponse.error(
                AuthorizationErrorResponse(error: .accessDenied, errorDescription: "the user declined", state: request.state))
            let result = try await submitAuthorizationResponse(resolvedRequest: request, response: denial, walletConfig: walletConfig)
            return RemotePresentationOutcome(verifier: request.verifier, presented: [:], disclosed: [:], submission: result)
        }
        let response = try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: walletConfig)
        let result = try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: walletConfig)
        var presented: [String: [String]] = [:]
        var disclosed: [String: [ClaimsPathPointer]] = [:]
        for selected in selection.credentials {
            presented[selected.queryId, default: []].append(selected.credential.id)
            disclosed[selected.queryId, default: []].append(contentsOf: selected.candidate.claims.map(\.path))
        }
        return RemotePresentationOutcome(verifier: request.verifier, presented: presented, disclosed: disclosed, submission: result)
    }
}
