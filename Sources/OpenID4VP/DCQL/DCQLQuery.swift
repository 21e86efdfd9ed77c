import SDJWT
import TesseraJOSE

/// Size limits for DCQL queries from untrusted requests.
public struct DCQLLimits: Sendable, Hashable {
    /// Most entries in `credentials` (and ids in one credential set option).
    public var maxCredentialQueries: Int
    /// Most entries in one query's `claims` (and claim ids in one `claim_sets` option).
    public var maxClaimsPerQuery: Int
    /// Most options in one query's `claim_sets`.
    public var maxClaimSets: Int
    /// Most entries in `credential_sets`.
    public var maxCredentialSets: Int
    /// Most options in one Credential Set Query.
    public var maxOptions: Int
    /// Most components in one claims path pointer.
    public var maxPathLength: Int
    /// Most entries in a claim's `values` or a trusted authorities query's `values`.
    public var maxValues: Int
    /// Most entries in one query's `trusted_authorities`.
    public var maxTrustedAuthorities: Int

    /// Limits; the defaults are far above what a real query needs and bound the work an untrusted request causes.
    public init(
        maxCredentialQueries: Int = 64, maxClaimsPerQuery: Int = 256, maxClaimSets: Int = 64,
        maxCredentialSets: Int = 64, maxOptions: Int = 64, maxPathLength: Int = 32, maxValues: Int = 256,
        maxTrustedAuthorities: Int = 64
    ) {
        self.maxCredentialQueries = maxCredentialQueries
        self.maxClaimsPerQuery = maxClaimsPerQuery
        self.maxClaimSets = maxClaimSets
        self.maxCredentialSets = maxCredentialSets
        self.maxOptions = maxOptions
        self.maxPathLength = maxPathLength
        self.maxValues = maxValues
        self.maxTrustedAuthorities = maxTrustedAuthorities
    }

    /// The limits `init()` gives: 64 credential queries, 256 claims per query, a path of at most 32 components.
    public static let `default` = DCQLLimits()
}

/// A Credential Format Identifier (§B): `dc+sd-jwt`, `mso_mdoc`, or any other string.
public struct CredentialFormat: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The identifier as it appears in `format`.
    public let rawValue: String
    /// Any identifier; formats this module does not implement never match a wallet credential.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// IETF SD-JWT VC (§B.3.1).
    public static let sdJWTVC = CredentialFormat(rawValue: "dc+sd-jwt")
    /// ISO mdoc (§B.2).
    public static let mdoc = CredentialFormat(rawValue: "mso_mdoc")

    /// `rawValue`.
    public var description: String { rawValue }
}

/// A DCQL query (§6): what the verifier asks for. Parsed strictly (every rule of §6 checked, unknown
/// properties ignored as §6 requires); `json` keeps the object as received.
public struct DCQLQuery: Sendable, Hashable {
    /// The Credential Queries (§6.1); non-empty, ids unique.
    public var credentials: [CredentialQuery]
    /// `credential_sets` (§6.2); nil when absent (see `effectiveCredentialSets`).
    public var credentialSets: [CredentialSetQuery]?
    /// The `dcql_query` object as received (or as built by `init(credentials:credentialSets:)`).
    public let json: JSONObject

    /// Builds a query (for verifiers); the result is checked against §6 like a parsed one.
    public init(credentials: [CredentialQuery], credentialSets: [CredentialSetQuery]? = nil) throws(OpenID4VPError) {
        self.credentials = credentials
        self.credentialSets = credentialSets
        var object = JSONObject()
        object["credentials"] = .array(credentials.map { .object($0.jsonObject) })
        if let credentialSets { object["credential_sets"] = .array(credentialSets.map { .object($0.jsonObject) }) }
        self.json = object
        try validateReferences()
    }

    /// Parses the `dcql_query` JSON object (§6).
    public init(json: JSONObject, limits: DCQLLimits = .default) throws(OpenID4VPError) {
        guard let credentialsValue = json["credentials"] else { throw .invalidDCQLQuery("credentials is missing") }
        guard let credentialArray = credentialsValue.arrayValue, !credentialArray.isEmpty else {
            throw .invalidDCQLQuery("credentials is not a non-empty array")
        }
        guard credentialArray.count <= limits.maxCredentialQueries else {
            throw .invalidDCQLQuery("more than \(limits.maxCredentialQueries) credential queries")
        }
        var credentials: [CredentialQuery] = []
        credentials.reserveCapacity(credentialArray.count)
        for element in credentialArray {
            guard let object = element.objectValue else { throw .invalidDCQLQuery("a credential query is not an object") }
            credentials.append(try CredentialQuery(json: object, limits: limits))
        }
        var credentialSets: [CredentialSetQuery]?
        if let setsValue = json["credential_sets"] {
            guard let array = setsValue.arrayValue, !array.isEmpty else {
                throw .invalidDCQLQuery("credential_sets is not a non-empty array")
            }
            guard array.count <= limits.maxCredentialSets else {
                throw .invalidDCQLQuery("more than \(limits.maxCredentialSets) credential sets")
            }
            var sets: [CredentialSetQuery] = []
            for element in array {
                guard let object = element.objectValue else { throw .invalidDCQLQuery("a credential set query is not an object") }
                sets.append(try CredentialSetQuery(json: object, limits: limits))
            }
            credentialSets = sets
        }
        self.credentials = credentials
        self.credentialSets = credentialSets
        self.json = json
        try validateReferences()
    }

    /// Parses `dcql_query` given as JSON text (a request parameter, §5.1).
    public init(parsing text: String, limits: DCQLLimits = .default, jsonLimits: JSONLimits = .default) throws(OpenID4VPError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text, limits: jsonLimits)
        } catch {
            throw .invalidDCQLQuery("not JSON (\(error))")
        }
        guard let object = value.objectValue else { throw .invalidDCQLQuery("not a JSON object") }
        try self.init(json: object, limits: limits)
    }

    /// The query with this `id`.
    public func credentialQuery(id: String) -> CredentialQuery? { credentials.first { $0.id == id } }

    /// §6.1: ids unique; §6.2: option ids reference credential queries.
    private func validateReferences() throws(OpenID4VPError) {
        var ids = Set<String>()
        for query in credentials {
            guard ids.insert(query.id).inserted else { throw .invalidDCQLQuery("credential query id \"\(query.id)\" is not unique") }
        }
        for set in credentialSets ?? [] {
            for option in set.options {
                for id in option where !ids.contains(id) {
                    throw .invalidDCQLQuery("credential_sets option references unknown id \"\(id)\"")
                }
            }
        }
    }

    /// The Credential Set Queries that apply: the given ones, or — without `credential_sets` — one required set
    /// whose only option is every credential query (§6.4.2).
    public var effectiveCredentialSets: [CredentialSetQuery] {
        credentialSets ?? [CredentialSetQuery(uncheckedOptions: [credentials.map(\.id)], required: true)]
    }
}

/// A Credential Query (§6.1).
public struct CredentialQuery: Sendable, Hashable {
    /// The query's id (§6.1: alphanumeric, `_` or `-`); the key of its presentations in the `vp_token`.
    public var id: String
    /// The Credential Format Identifier the presentation must have.
    public var format: CredentialFormat
    /// `multiple` (default false): whether several credentials may answer this query.
    public var multiple: Bool
    /// `meta` as received; `vctValues` / `doctypeValue` are its format-specific members.
    public var meta: JSONObject
    /// Issuers the verifier accepts (§6.1.1); nil when any issuer will do.
    public var trustedAuthorities: [TrustedAuthoritiesQuery]?
    /// `require_cryptographic_holder_binding` (default true).
    public var requireCryptographicHolderBinding: Bool
    /// The claims asked for (§6.3); nil asks for no particular claim.
    public var claims: [ClaimsQuery]?
    /// `claim_sets`: claim ids, options in order of the verifier's preference.
    public var claimSets: [[String]]?

    /// `meta.vct_values` (§B.3.5), for `dc+sd-jwt`.
    public var vctValues: [String]? { meta["vct_values"]?.arrayValue?.compactMap(\.stringValue) }
    /// `meta.doctype_value` (§B.2.3), for `mso_mdoc`.
    public var doctypeValue: String? { meta["doctype_value"]?.stringValue }

    /// Builds a query (for verifiers); checked against §6.1 like a parsed one.
    public init(
        id: String, format: CredentialFormat, meta: JSONObject, multiple: Bool = false,
        trustedAuthorities: [TrustedAuthoritiesQuery]? = nil, requireCryptographicHolderBinding: Bool = true,
        claims: [ClaimsQuery]? = nil, claimSets: [[String]]? = nil
    ) throws(OpenID4VPError) {
        self.id = id
        self.format = format
        self.multiple = multiple
        self.meta = meta
        self.trustedAuthorities = trustedAuthorities
        self.requireCryptographicHolderBinding = requireCryptographicHolderBinding
        self.claims = claims
        self.claimSets = claimSets
        try validate(limits: .default)
    }

    /// An SD-JWT VC query with `vct_values`.
    public static func sdJWTVC(
        id: String, vctValues: [String], claims: [ClaimsQuery]? = nil, claimSets: [[String]]? = nil,
        multiple: Bool = false, requireCryptographicHolderBinding: Bool = true,
        trustedAuthorities: [TrustedAuthoritiesQuery]? = nil
    ) throws(OpenID4VPError) -> CredentialQuery {
        try CredentialQuery(
            id: id, format: .sdJWTVC, meta: ["vct_values": .array(vctValues.map(JSONValue.string))], multiple: multiple,
            trustedAuthorities: trustedAuthorities, requireCryptographicHolderBinding: requireCryptographicHolderBinding,
            claims: claims, claimSets: claimSets)
    }

    /// An mdoc query with `doctype_value`.
    public static func mdoc(
        id: String, doctype: String, claims: [ClaimsQuery]? = nil, claimSets: [[String]]? = nil, multiple: Bool = false,
        trustedAuthorities: [TrustedAuthoritiesQuery]? = nil
    ) throws(OpenID4VPError) -> CredentialQuery {
        try CredentialQuery(
            id: id, format: .mdoc, meta: ["doctype_value": .string(doctype)], multiple: multiple,
            trustedAuthorities: trustedAuthorities, claims: claims, claimSets: claimSets)
    }

    init(json: JSONObject, limits: DCQLLimits) throws(OpenID4VPError) {
        guard let id = json["id"]?.stringValue else { throw .invalidDCQLQuery("credential query id is missing or not a string") }
        guard let format = json["format"]?.stringValue else { throw .invalidDCQLQuery("credential query \(id): format is missing") }
        self.id = id
        self.format = CredentialFormat(rawValue: format)
        self.multiple = try Self.optionalBool(json, "multiple", id: id) ?? false
        guard let meta = json["meta"] else { throw .invalidDCQLQuery("credential query \(id): meta is missing") }
        guard let metaObject = meta.objectValue else { throw .invalidDCQLQuery("credential query \(id): meta is not an object") }
        self.meta = metaObject
        self.requireCryptographicHolderBinding =
            try Self.optionalBool(json, "require_cryptographic_holder_binding", id: id) ?? true
        if let value = json["trusted_authorities"] {
            guard let array = value.arrayValue, !array.isEmpty, array.count <= limits.maxTrustedAuthorities else {
                throw .invalidDCQLQuery("credential query \(id): trusted_authorities is not a non-empty array")
            }
            var authorities: [TrustedAuthoritiesQuery] = []
            for element in array {
                guard let object = element.objectValue else {
                    throw .invalidDCQLQuery("credential query \(id): a trusted authorities query is not an object")
                }
                authorities.append(try TrustedAuthoritiesQuery(json: object, limits: limits))
            }
            self.trustedAuthorities = authorities
        } else {
            self.trustedAuthorities = nil
        }
        if let value = json["claims"] {
            guard let array = value.arrayValue, !array.isEmpty else {
                throw .invalidDCQLQuery("credential query \(id): claims is not a non-empty array")
            }
            guard array.count <= limits.maxClaimsPerQuery else {
                throw .invalidDCQLQuery("credential query \(id): more than \(limits.maxClaimsPerQuery) claims")
            }
            var claims: [ClaimsQuery] = []
            for element in array {
                guard let object = element.objectValue else { throw .invalidDCQLQuery("credential query \(id): a claims query is not an object") }
                claims.append(try ClaimsQuery(json: object, format: self.format, limits: limits))
            }
            self.claims = claims
        } else {
            self.claims = nil
        }
        if let value = json["claim_sets"] {
            guard let array = value.arrayValue, !array.isEmpty, array.count <= limits.maxClaimSets else {
                throw .invalidDCQLQuery("credential query \(id): claim_sets is not a non-empty array")
            }
            var sets: [[String]] = []
            for element in array {
                guard let option = element.arrayValue, !option.isEmpty, option.count <= limits.maxClaimsPerQuery else {
                    throw .invalidDCQLQuery("credential query \(id): a claim set is not a non-empty array")
                }
                var ids: [String] = []
                for entry in option {
                    guard let claimId = entry.stringValue else {
                        throw .invalidDCQLQuery("credential query \(id): a claim set holds a non-string")
                    }
                    ids.append(claimId)
                }
                sets.append(ids)
            }
            self.claimSets = sets
        } else {
            self.claimSets = nil
        }
        try validate(limits: limits)
    }

    private static func optionalBool(_ json: JSONObject, _ name: String, id: String) throws(OpenID4VPError) -> Bool? {
        guard let value = json[name] else { return nil }
        guard let bool = value.boolValue else { throw .invalidDCQLQuery("credential query \(id): \(name) is not a boolean") }
        return bool
    }

    /// The §6.1 / §6.3 / §B rules that span members.
    private func validate(limits: DCQLLimits) throws(OpenID4VPError) {
        guard ParameterCharset.isDCQLIdentifier(id) else {
            throw .invalidDCQLQuery("credential query id \"\(id)\" is not alphanumeric, _ or -")
        }
        if format == .sdJWTVC {
            guard let values = meta["vct_values"]?.arrayValue, !values.isEmpty, values.allSatisfy({ $0.stringValue != nil })
            else { throw .invalidDCQLQuery("credential query \(id): meta.vct_values is not a non-empty array of strings") }
        } else if format == .mdoc {
            guard doctypeValue != nil else { throw .invalidDCQLQuery("credential query \(id): meta.doctype_value is not a string") }
        }
        if let claims {
            guard !claims.isEmpty else { throw .invalidDCQLQuery("credential query \(id): claims is empty") }
            var claimIds = Set<String>()
            for claim in claims {
                if let claimId = claim.id, !claimIds.insert(claimId).inserted {
                    throw .invalidDCQLQuery("credential query \(id): claim id \"\(claimId)\" is not unique")
                }
                if format == .mdoc, claim.path.mdocElement == nil {
                    throw .invalidDCQLQuery("credential query \(id): an mdoc claims path is not [namespace, element]")
                }
            }
            if let claimSets {
                guard !claimSets.isEmpty else { throw .invalidDCQLQuery("credential query \(id): claim_sets is empty") }
                guard claims.allSatisfy({ $0.id != nil }) else {
                    throw .invalidDCQLQuery("credential query \(id): claim_sets requires an id on every claim")
                }
                for option in claimSets {
                    guard !option.isEmpty else { throw .invalidDCQLQuery("credential query \(id): a claim set is empty") }
                    for claimId in option where !claimIds.contains(claimId) {
                        throw .invalidDCQLQuery("credential query \(id): claim set references unknown claim \"\(claimId)\"")
                    }
                }
            }
        } else if claimSets != nil {
            throw .invalidDCQLQuery("credential query \(id): claim_sets without claims")
        }
        if let trustedAuthorities, trustedAuthorities.isEmpty {
            throw .invalidDCQLQuery("credential query \(id): trusted_authorities is empty")
        }
    }

    /// The JSON object form.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        object["id"] = .string(id)
        object["format"] = .string(format.rawValue)
        if multiple { object["multiple"] = .bool(true) }
        object["meta"] = .object(meta)
        if let trustedAuthorities { object["trusted_authorities"] = .array(trustedAuthorities.map { .object($0.jsonObject) }) }
        if !requireCryptographicHolderBinding { object["require_cryptographic_holder_binding"] = .bool(false) }
        if let claims { object["claims"] = .array(claims.map { .object($0.jsonObject) }) }
        if let claimSets { object["claim_sets"] = .array(claimSets.map { .array($0.map(JSONValue.string)) }) }
        return object
    }
}

/// A value in a Claims Query's `values` (§6.3): a string, an integer or a boolean.
public enum ClaimValue: Sendable, Hashable, CustomStringConvertible {
    /// A JSON string.
    case string(String)
    /// A JSON integer.
    case integer(Int64)
    /// A JSON boolean.
    case bool(Bool)

    /// The value as JSON.
    public var json: JSONValue {
        switch self {
        case .string(let value): return .string(value)
        case .integer(let value): return .integer(value)
        case .bool(let value): return .bool(value)
        }
    }

    /// §6.3: the claim's type and value both match exactly.
    public func matches(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.string(let expected), .string(let found)): return expected == found
        case (.integer(let expected), .integer(let found)): return expected == found
        case (.bool(let expected), .bool(let found)): return expected == found
        default: return false
        }
    }

    /// The value as serialized JSON.
    public var description: String { json.serializedString }
}

/// A Claims Query (§6.3).
public struct ClaimsQuery: Sendable, Hashable {
    /// Required when the credential query has `claim_sets`.
    public var id: String?
    /// Where the claim is (§7): `[namespace, element]` for mdoc.
    public var path: ClaimsPathPointer
    /// Values the claim must have one of (§6.3); nil accepts any value.
    public var values: [ClaimValue]?
    /// mdoc `intent_to_retain` (§B.2.4).
    public var intentToRetain: Bool?

    /// A Claims Query.
    /// - Throws: `OpenID4VPError.invalidDCQLQuery` when `id` is not alphanumeric, `_` or `-`, or `values` is empty.
    public init(id: String? = nil, path: ClaimsPathPointer, values: [ClaimValue]? = nil, intentToRetain: Bool? = nil) throws(OpenID4VPError) {
        if let id, !ParameterCharset.isDCQLIdentifier(id) {
            throw .invalidDCQLQuery("claim id \"\(id)\" is not alphanumeric, _ or -")
        }
        if let values, values.isEmpty { throw .invalidDCQLQuery("claim values is empty") }
        self.id = id
        self.path = path
        self.values = values
        self.intentToRetain = intentToRetain
    }

    init(json: JSONObject, format: CredentialFormat, limits: DCQLLimits) throws(OpenID4VPError) {
        var id: String?
        if let value = json["id"] {
            guard let text = value.stringValue else { throw .invalidDCQLQuery("claim id is not a string") }
            id = text
        }
        guard let pathValue = json["path"] else { throw .invalidDCQLQuery("claims query path is missing") }
        let path = try ClaimsPathPointer(dcqlJSON: pathValue, maxLength: limits.maxPathLength)
        var values: [ClaimValue]?
        if let value = json["values"] {
            guard let array = value.arrayValue, !array.isEmpty, array.count <= limits.maxValues else {
                throw .invalidDCQLQuery("claim values is not a non-empty array")
            }
            var parsed: [ClaimValue] = []
            for element in array {
                switch element {
                case .string(let text): parsed.append(.string(text))
                case .integer(let number): parsed.append(.integer(number))
                case .bool(let flag): parsed.append(.bool(flag))
                default: throw .invalidDCQLQuery("claim values holds something other than a string, integer or boolean")
                }
            }
            values = parsed
        }
        var intentToRetain: Bool?
        if format == .mdoc, let value = json["intent_to_retain"] {
            guard let flag = value.boolValue else { throw .invalidDCQLQuery("intent_to_retain is not a boolean") }
            intentToRetain = flag
        }
        try self.init(id: id, path: path, values: values, intentToRetain: intentToRetain)
    }

    /// The JSON object form.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        if let id { object["id"] = .string(id) }
        object["path"] = path.json
        if let values { object["values"] = .array(values.map(\.json)) }
        if let intentToRetain { object["intent_to_retain"] = .bool(intentToRetain) }
        return object
    }
}

/// A Credential Set Query (§6.2).
public struct CredentialSetQuery: Sendable, Hashable {
    /// Each option is a list of credential query ids that together satisfy the use case.
    public var options: [[String]]
    /// `required` (default true).
    public var required: Bool

    /// A Credential Set Query.
    /// - Throws: `OpenID4VPError.invalidDCQLQuery` when `options` or one of its options is empty.
    public init(options: [[String]], required: Bool = true) throws(OpenID4VPError) {
        guard !options.isEmpty, options.allSatisfy({ !$0.isEmpty }) else {
            throw .invalidDCQLQuery("credential set options is not a non-empty array of non-empty arrays")
        }
        self.options = options
        self.required = required
    }

    init(uncheckedOptions options: [[String]], required: Bool) {
        self.options = options
        self.required = required
    }

    init(json: JSONObject, limits: DCQLLimits) throws(OpenID4VPError) {
        guard let array = json["options"]?.arrayValue, !array.isEmpty, array.count <= limits.maxOptions else {
            throw .invalidDCQLQuery("credential set options is not a non-empty array")
        }
        var options: [[String]] = []
        for element in array {
            guard let option = element.arrayValue, !option.isEmpty, option.count <= limits.maxCredentialQueries else {
                throw .invalidDCQLQuery("a credential set option is not a non-empty array")
            }
            var ids: [String] = []
            for entry in option {
                guard let id = entry.stringValue else { throw .invalidDCQLQuery("a credential set option holds a non-string") }
                ids.append(id)
            }
            options.append(ids)
        }
        var required = true
        if let value = json["required"] {
            guard let flag = value.boolValue else { throw .invalidDCQLQuery("credential set required is not a boolean") }
            required = flag
        }
        try self.init(options: options, required: required)
    }

    /// The JSON object form; `required` is written only when false.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        object["options"] = .array(options.map { .array($0.map(JSONValue.string)) })
        if !required { object["required"] = .bool(false) }
        return object
    }
}

/// A Trusted Authorities Query (§6.1.1).
public struct TrustedAuthoritiesQuery: Sendable, Hashable {
    /// `aki` (§6.1.1.1), `etsi_tl`, `openid_federation`, or another type.
    public var type: String
    /// The type-specific values, e.g. for `aki` the base64url KeyIdentifiers of accepted issuer CAs (§6.1.1.1).
    public var values: [String]

    /// `"aki"`: match on the Authority Key Identifier of the credential's issuer certificate chain (§6.1.1.1).
    public static let authorityKeyIdentifier = "aki"

    /// A Trusted Authorities Query.
    /// - Throws: `OpenID4VPError.invalidDCQLQuery` when `values` is empty.
    public init(type: String, values: [String]) throws(OpenID4VPError) {
        guard !values.isEmpty else { throw .invalidDCQLQuery("trusted authorities values is empty") }
        self.type = type
        self.values = values
    }

    init(json: JSONObject, limits: DCQLLimits) throws(OpenID4VPError) {
        guard let type = json["type"]?.stringValue else { throw .invalidDCQLQuery("trusted authorities type is not a string") }
        guard let array = json["values"]?.arrayValue, !array.isEmpty, array.count <= limits.maxValues else {
            throw .invalidDCQLQuery("trusted authorities values is not a non-empty array")
        }
        var values: [String] = []
        for element in array {
            guard let text = element.stringValue else { throw .invalidDCQLQuery("trusted authorities values holds a non-string") }
            values.append(text)
        }
        try self.init(type: type, values: values)
    }

    /// The JSON object form.
    public var jsonObject: JSONObject {
        ["type": .string(type), "values": .array(values.map(JSONValue.string))]
    }
}
