import Foundation
import SDJWT
import TesseraCBOR
import TesseraJOSE
import TesseraCore

/// One claim a candidate would disclose.
public struct DisclosedClaim: Sendable, Hashable {
    /// A claim value in its credential's own encoding.
    public enum Value: Sendable, Hashable {
        /// A JSON claim of an SD-JWT VC.
        case json(JSONValue)
        /// An mdoc data element value.
        case cbor(CBOR)
    }

    /// The claim's concrete location: object keys and array indices (JSON) or `[namespace, element]` (mdoc).
    public let path: ClaimsPathPointer
    /// The value that would be disclosed.
    public let value: Value
    /// The Claims Query `id` that asked for it, if it has one.
    public let claimQueryId: String?
    /// mdoc `intent_to_retain` of the Claims Query (§B.2.4).
    public let intentToRetain: Bool?
}

/// A wallet credential that satisfies a Credential Query, with the claims it would disclose (§6.4).
public struct CredentialCandidate: Sendable {
    /// The id of the Credential Query it satisfies.
    public let queryId: String
    /// The wallet credential that satisfies the query (format, type, trusted authorities and claims).
    public let credential: WalletCredential
    /// The index into `claim_sets` of the option used: the first one the credential satisfies (§6.4.1).
    public let claimSetIndex: Int?
    /// What would be disclosed; empty when the query has no `claims` (only what is mandatory is sent).
    public let claims: [DisclosedClaim]
}

/// How a Credential Set Query (or the implicit one when `credential_sets` is absent) can be satisfied.
public struct CredentialSetMatch: Sendable, Hashable {
    /// The set's options (credential query ids), as in the query.
    public let options: [[String]]
    /// Whether the set must be satisfied (§6.2 `required`, default true).
    public let required: Bool
    /// Indices into `options` whose every credential query has at least one candidate.
    public let satisfiableOptions: [Int]

    /// True when at least one option has a candidate for every query in it.
    public var isSatisfiable: Bool { !satisfiableOptions.isEmpty }
}

/// The result of evaluating a DCQL query against the wallet's credentials (§6.4): a pure value the consent UI
/// shows, and from which the End-User's choice becomes a `DCQLSelection`.
public struct DCQLMatch: Sendable {
    /// The query evaluated.
    public let query: DCQLQuery
    /// Credential query id → candidates, in wallet order. Every query id is present (possibly with none).
    public let candidates: [String: [CredentialCandidate]]
    /// One entry per Credential Set Query (one implicit required set without `credential_sets`).
    public let credentialSets: [CredentialSetMatch]

    /// Whether every required credential set has an option the wallet can satisfy (§6.4.2). If not, the wallet
    /// answers `access_denied` and returns no credential at all.
    public var isSatisfiable: Bool { credentialSets.allSatisfy { !$0.required || $0.isSatisfiable } }

    /// Evaluates `query` against `credentials` (§6.4, §7). Pure: no I/O, no clock.
    public init(query: DCQLQuery, credentials: [WalletCredential]) {
        var candidates: [String: [CredentialCandidate]] = [:]
        for credentialQuery in query.credentials {
            candidates[credentialQuery.id] = credentials.compactMap { DCQLMatcher.candidate(for: credentialQuery, credential: $0) }
        }
        self.init(query: query, candidates: candidates)
    }

    /// The match without the candidates that would disclose a claim the End-User did not agree to share:
    /// credential sets are re-evaluated, so a required set may become unsatisfiable (then the wallet answers
    /// `access_denied`, §6.4.2 — never a partial `vp_token`).
    public func restricted(to consented: (DisclosedClaim) -> Bool) -> DCQLMatch {
        DCQLMatch(query: query, candidates: candidates.mapValues { $0.filter { $0.claims.allSatisfy(consented) } })
    }

    private init(query: DCQLQuery, candidates: [String: [CredentialCandidate]]) {
        self.query = query
        self.candidates = candidates
        self.credentialSets = query.effectiveCredentialSets.map { set in
            CredentialSetMatch(
                options: set.options, required: set.required,
                satisfiableOptions: set.options.indices.filter { index in
                    set.options[index].allSatisfy { !(candidates[$0] ?? []).isEmpty }
                })
        }
    }

    /// The selection the verifier prefers: for each credential set, its first satisfiable option (optional sets
    /// only when satisfiable), and for each query the first candidate.
    ///
    /// - Throws: `requiredCredentialsUnavailable` when a required set cannot be satisfied (§6.4.2).
    public func preferredSelection() throws(OpenID4VPError) -> DCQLSelection {
        guard isSatisfiable else { throw .requiredCredentialsUnavailable }
        var chosen: [String: [String]] = [:]
        for set in credentialSets {
            guard let option = set.satisfiableOptions.first else { continue }
            for queryId in set.options[option] where chosen[queryId] == nil {
                if let first = candidates[queryId]?.first { chosen[queryId] = [first.credential.id] }
            }
        }
        return try select(chosen)
    }

    /// Turns the End-User's choice (credential query id → wallet credential ids) into a selection, checking it
    /// against the query: each credential is a candidate of its query; one credential per query unless
    /// `multiple` (§6.1); every required credential set has one option fully chosen, and every chosen query
    /// belongs to a fully chosen option (§6.4.2: no partial options, nothing unrequested).
    public func select(_ choice: [String: [String]]) throws(OpenID4VPError) -> DCQLSelection {
        guard isSatisfiable else { throw .requiredCredentialsUnavailable }
        var entries: [SelectedCredential] = []
        for queryId in query.credentials.map(\.id) {
            guard let credentialIds = choice[queryId] else { continue }
            guard let credentialQuery = query.credentialQuery(id: queryId) else { continue }
            guard !credentialIds.isEmpty else { throw .invalidSelection("no credential chosen for \(queryId)") }
            guard credentialIds.count == 1 || credentialQuery.multiple else {
                throw .invalidSelection("\(credentialIds.count) credentials for \(queryId), which does not allow multiple")
            }
            guard Set(credentialIds).count == credentialIds.count else {
                throw .invalidSelection("a credential is chosen twice for \(queryId)")
            }
            for credentialId in credentialIds {
                guard let candidate = candidates[queryId]?.first(where: { $0.credential.id == credentialId }) else {
                    throw .invalidSelection("credential \(credentialId) does not satisfy \(queryId)")
                }
                entries.append(SelectedCredential(candidate: candidate))
            }
        }
        for queryId in choice.keys where query.credentialQuery(id: queryId) == nil {
            throw .invalidSelection("\(queryId) is not a credential query of the request")
        }
        let chosenIds = Set(entries.map(\.queryId))
        var covered = Set<String>()
        for (index, set) in credentialSets.enumerated() {
            let complete = set.options.filter { Set($0).isSubset(of: chosenIds) }
            if set.required && complete.isEmpty {
                throw .invalidSelection("credential set \(index) is required but none of its options is fully chosen")
            }
            for option in complete { covered.formUnion(option) }
        }
        if let stray = chosenIds.subtracting(covered).sorted().first {
            throw .invalidSelection("\(stray) is not part of a fully chosen credential set option")
        }
        return DCQLSelection(query: query, credentials: entries)
    }
}

/// A credential the End-User agreed to present for one Credential Query.
public struct SelectedCredential: Sendable {
    /// The candidate chosen, with the claims it discloses.
    public let candidate: CredentialCandidate
    /// The Credential Query it answers.
    public var queryId: String { candidate.queryId }
    /// The wallet credential to present.
    public var credential: WalletCredential { candidate.credential }
}

/// The End-User's choice, checked against the query (see `DCQLMatch.select`).
public struct DCQLSelection: Sendable {
    /// The query the selection answers.
    public let query: DCQLQuery
    /// In the order of the query's credential queries.
    public let credentials: [SelectedCredential]

    /// The query ids answered, in query order.
    public var queryIds: [String] {
        var seen = Set<String>()
        return credentials.map(\.queryId).filter { seen.insert($0).inserted }
    }
}

/// The per-credential rules of §6.1, §6.3, §6.4.1 and §7.
enum DCQLMatcher {
    static func candidate(for query: CredentialQuery, credential: WalletCredential) -> CredentialCandidate? {
        guard query.format == credential.format else { return nil }
        switch credential {
        case .sdJWTVC(let sdJWT):
            guard let vctValues = query.vctValues, !Set(vctValues).isDisjoint(with: [sdJWT.vct] + sdJWT.inheritedTypes) else {
                return nil
            }
            // §B.3: with holder binding required, an SD-JWT without `cnf` cannot be returned.
            if query.requireCryptographicHolderBinding && !sdJWT.hasCryptographicHolderBinding { return nil }
        case .mdoc(let mdoc):
            guard query.doctypeValue == mdoc.docType else { return nil }
        }
        if let authorities = query.trustedAuthorities, !matchesTrustedAuthorities(authorities, credential: credential) {
            return nil
        }
        guard let claims = query.claims else {
            // §6.4.1: no claims requested — only what is mandatory to present.
            return CredentialCandidate(queryId: query.id, credential: credential, claimSetIndex: nil, claims: [])
        }
        let evaluated = claims.map { evaluate($0, credential: credential) }
        guard let claimSets = query.claimSets else {
            guard evaluated.allSatisfy({ $0 != nil }) else { return nil }
            return CredentialCandidate(
                queryId: query.id, credential: credential, claimSetIndex: nil, claims: evaluated.flatMap { $0 ?? [] })
        }
        // §6.4.1: the first option the wallet can satisfy, in the verifier's order of preference.
        for (index, option) in claimSets.enumerated() {
            let wanted = Set(option)
            let members = claims.indices.filter { claims[$0].id.map(wanted.contains) ?? false }
            guard members.allSatisfy({ evaluated[$0] != nil }) else { continue }
            return CredentialCandidate(
                queryId: query.id, credential: credential, claimSetIndex: index,
                claims: members.flatMap { evaluated[$0] ?? [] })
        }
        return nil
    }

    /// The claims one Claims Query selects in the credential, or nil when it does not exist or no value matches
    /// `values` (§6.4.1: then it is treated as absent).
    static func evaluate(_ claim: ClaimsQuery, credential: WalletCredential) -> [DisclosedClaim]? {
        switch credential {
        case .sdJWTVC(let sdJWT):
            guard var selections = claim.path.selections(in: sdJWT.claims) else { return nil }
            if let values = claim.values {
                selections = selections.filter { selection in values.contains { $0.matches(selection.value) } }
                guard !selections.isEmpty else { return nil }
            }
            return selections.map {
                DisclosedClaim(path: $0.path, value: .json($0.value), claimQueryId: claim.id, intentToRetain: nil)
            }
        case .mdoc(let mdoc):
            guard let value = claim.path.mdocValue(in: mdoc.nameSpaces) else { return nil }
            if let values = claim.values {
                // §6.3: the CBOR value is first converted to JSON (RFC 8949 §6.1).
                guard let json = CBORToJSON.convert(value), values.contains(where: { $0.matches(json) }) else { return nil }
            }
            return [DisclosedClaim(path: claim.path, value: .cbor(value), claimQueryId: claim.id, intentToRetain: claim.intentToRetain)]
        }
    }

    /// §6.1.1: the credential matches one value of one Trusted Authorities Query. Only `aki` can be evaluated
    /// from the credential itself; other types never match.
    static func matchesTrustedAuthorities(_ authorities: [TrustedAuthoritiesQuery], credential: WalletCredential) -> Bool {
        let held = Set(credential.authorityKeyIdentifiers)
        guard !held.isEmpty else { return false }
        for authority in authorities where authority.type == TrustedAuthoritiesQuery.authorityKeyIdentifier {
            for value in authority.values {
                if let keyIdentifier = try? Base64URL.decode(value), held.contains(keyIdentifier) { return true }
            }
        }
        return false
    }
}

/// CBOR → JSON for value matching (§6.3, RFC 8949 §6.1): text strings, integers within Int64 and booleans.
/// Other items have no exact JSON counterpart that `values` could name and convert to nil.
enum CBORToJSON {
    static func convert(_ item: CBOR) -> JSONValue? {
        switch item {
        case .text(let text): return .string(text)
        case .bool(let flag): return .bool(flag)
        case .unsigned(let value): return value <= UInt64(Int64.max) ? .integer(Int64(value)) : nil
        case .negative(let value): return value <= UInt64(Int64.max) ? .integer(-1 - Int64(value)) : nil
        case .tagged(_, let inner):
            // Tags with a text content (tdate 0, full-date 1004) match by their text (RFC 8949 §6.1).
            if case .text(let text) = inner { return .string(text) }
            return nil
        default: return nil
        }
    }
}
