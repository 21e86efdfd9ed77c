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

/// How one remote presentation ended, from the wallet's side.
public enum RemotePresentationResult: Sendable, Equatable {
    /// Presentations were sent (what the verifier made of them is in `submission`).
    case presented
    /// The End-User declined (`consent: .none`, or a narrower consent than the required credential sets).
    case declined
    /// No credential of the wallet meets the request's required credential sets (§6.4.2).
    case noMatchingCredential
    /// The wallet refused the request: the rule it breaks. An authenticated verifier was told so (§5.1, §8.5).
    case refused(OpenID4VPError)
}

/// The outcome of one remote presentation, for a consent screen or the CLI.
public struct RemotePresentationOutcome: Sendable {
    /// Who asked: the verifier's client identifier, whether it authenticated, and its display name.
    public let verifier: VerifierInfo
    /// How the presentation ended from the wallet's side.
    public let result: RemotePresentationResult
    /// Credential query id → ids of the wallet credentials presented (empty unless `result` is `.presented`).
    public let presented: [String: [String]]
    /// The claims each presented credential disclosed (credential query id → claim paths).
    public let disclosed: [String: [ClaimsPathPointer]]
    /// What the verifier answered (to the presentation or to the wallet's error response); nil when the wallet had
    /// to stay silent (§8.5: error responses only to an authenticated verifier).
    public let submission: SubmissionResult?
    /// True when nothing was presented (declined, no match, or refused).
    public var declined: Bool { presented.isEmpty }

    init(
        verifier: VerifierInfo, result: RemotePresentationResult, presented: [String: [String]] = [:],
        disclosed: [String: [ClaimsPathPointer]] = [:], submission: SubmissionResult?
    ) {
        self.verifier = verifier
        self.result = result
        self.presented = presented
        self.disclosed = disclosed
        self.submission = submission
    }
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

    /// Runs the whole flow for an invocation URI. `consent` narrows what may be disclosed.
    ///
    /// Every refusal after the request was fetched goes back to an authenticated verifier as an error response
    /// (§5.1, §8.5; encrypted for `direct_post.jwt` when its metadata gives a key): a request the wallet cannot
    /// serve (`refused`, e.g. `invalid_transaction_data`), no credential that meets the required credential sets
    /// (`access_denied`, §6.4.2), the End-User's refusal (`access_denied`). A verifier that did not authenticate
    /// gets nothing, and the refusal is thrown. Throws as well when the request cannot be fetched or read.
    public static func present(
        requestURI: String, credentials: [WalletCredential], consent: RemoteConsent, walletConfig: WalletConfiguration
    ) async throws(OpenID4VPError) -> RemotePresentationOutcome {
        let parsed = try await parseAuthorizationRequest(requestUri: requestURI, walletConfig: walletConfig)
        let request: ResolvedAuthorizationRequest
        do {
            request = try await resolveAuthorizationRequest(parsed, walletConfig: walletConfig)
        } catch {
            return try await refuse(parsed, because: error, walletConfig: walletConfig)
        }
        let match = request.match(credentials)
        guard let everything = try? match.preferredSelection() else {
            return try await deny(request, .noMatchingCredential, "no credential matches the request", walletConfig: walletConfig)
        }
        let selection: DCQLSelection?
        switch consent {
        case .none:
            selection = nil
        case .all:
            selection = everything
        case .claims(let names):
            selection = try? match.restricted { claim in
                guard case .key(let name)? = claim.path.components.last else { return false }
                return names.contains(name)
            }.preferredSelection()
        }
        guard let selection else {
            return try await deny(request, .declined, "the user declined", walletConfig: walletConfig)
        }
        let response: AuthorizationResponse
        do {
            response = try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: walletConfig)
        } catch {
            // The request was fine but the wallet could not build its answer: the verifier is told (§8.5).
            var reply: SubmissionResult?
            if request.verifier.isAuthenticated {
                reply = try? await submitErrorResponse(
                    AuthorizationErrorResponse(error, state: request.state), destination: request.destination,
                    walletConfig: walletConfig)
            }
            return RemotePresentationOutcome(verifier: request.verifier, result: .refused(error), submission: reply)
        }
        let result = try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: walletConfig)
        var presented: [String: [String]] = [:]
        var disclosed: [String: [ClaimsPathPointer]] = [:]
        for selected in selection.credentials {
            presented[selected.queryId, default: []].append(selected.credential.id)
            disclosed[selected.queryId, default: []].append(contentsOf: selected.candidate.claims.map(\.path))
        }
        return RemotePresentationOutcome(
            verifier: request.verifier, result: .presented, presented: presented, disclosed: disclosed, submission: result)
    }

    /// `access_denied` (§8.5) for a declined or unanswerable request; an unauthenticated verifier gets nothing.
    private static func deny(
        _ request: ResolvedAuthorizationRequest, _ result: RemotePresentationResult, _ reason: String,
        walletConfig: WalletConfiguration
    ) async throws(OpenID4VPError) -> RemotePresentationOutcome {
        guard request.verifier.isAuthenticated else {
            return RemotePresentationOutcome(verifier: request.verifier, result: result, submission: nil)
        }
        let denial = AuthorizationResponse.error(
            AuthorizationErrorResponse(error: .accessDenied, errorDescription: reason, state: request.state))
        let reply = try await submitAuthorizationResponse(resolvedRequest: request, response: denial, walletConfig: walletConfig)
        return RemotePresentationOutcome(verifier: request.verifier, result: result, submission: reply)
    }

    /// A request the wallet refuses: its §8.5 error goes to the verifier when the verifier authenticated and its
    /// response destination is allowed (`errorResponseDestination`); otherwise the wallet stays silent and throws.
    private static func refuse(
        _ parsed: ParsedAuthorizationRequest, because failure: OpenID4VPError, walletConfig: WalletConfiguration
    ) async throws(OpenID4VPError) -> RemotePresentationOutcome {
        guard let target = await errorResponseTarget(for: parsed, walletConfig: walletConfig) else { throw failure }
        let reply = try await submitErrorResponse(
            AuthorizationErrorResponse(failure, state: target.destination.state), destination: target.destination,
            walletConfig: walletConfig)
        return RemotePresentationOutcome(verifier: target.verifier, result: .refused(failure), submission: reply)
    }
}
