import Foundation

/// The registered claims every NATS JWT v2 carries, plus the NATS-specific `nats` object.
///
/// `jti` is an identifier computed from the other claims (see `NATSJWT.encode`), `iat`/`exp`/`nbf` are seconds since
/// 1970, `iss` is the signer's public nkey and `sub` the public nkey the JWT describes.
public protocol NATSClaims: Codable, Sendable {
    associatedtype Body: NATSClaimsBody
    var jti: String { get set }
    var iat: Int64 { get set }
    var iss: String { get set }
    var sub: String { get }
    var name: String? { get }
    var exp: Int64? { get }
    var nbf: Int64? { get }
    var nats: Body { get }
    /// The key types that may sign these claims (operator claims are self-signed; accounts by an operator…).
    static var issuerTypes: [NKeyType] { get }
    static var subjectType: NKeyType { get }
}

/// The `nats` member: its `type` and `version` (always 2 here).
public protocol NATSClaimsBody: Codable, Sendable {
    var type: String { get }
    var version: Int { get }
    static var claimType: String { get }
}

/// Operator claims (`nats.type = "operator"`), self-signed by the operator key.
public struct OperatorClaims: NATSClaims, Equatable {
    public struct Body: NATSClaimsBody, Equatable {
        public var signing_keys: [String]?
        public var system_account: String?
        public var account_server_url: String?
        public var operator_service_urls: [String]?
        public var type: String = Self.claimType
        public var version: Int = 2
        public static let claimType = "operator"
    }

    public var jti = ""
    public var iat: Int64 = 0
    public var iss = ""
    public var sub: String
    public var name: String?
    public var exp: Int64?
    public var nbf: Int64?
    public var nats: Body

    public static let issuerTypes: [NKeyType] = [.operator]
    public static let subjectType: NKeyType = .operator

    public init(
        operator publicKey: String, name: String, systemAccount: String? = nil, signingKeys: [String]? = nil,
        accountServerURL: String? = nil, expires: Date? = nil
    ) {
        self.sub = publicKey
        self.name = name
        self.exp = expires.map { Int64($0.timeIntervalSince1970) }
        self.nats = Body(signing_keys: signingKeys, system_account: systemAccount, account_server_url: accountServerURL)
    }
}

/// Account claims (`nats.type = "account"`), signed by the operator (or one of its signing keys).
public struct AccountClaims: NATSClaims, Equatable {
    public struct Body: NATSClaimsBody, Equatable {
        public var limits: NATSAccountLimits
        public var signing_keys: [String]?
        /// Revoked users: user public nkey (or `*` for every user) → unix seconds; a user JWT issued at or before
        /// that second is refused (see `revokes(user:issuedAt:)`). Written only when non-empty.
        public var revocations: [String: Int64]?
        public var default_permissions: DefaultPermissions
        public var type: String = Self.claimType
        public var version: Int = 2
        public static let claimType = "account"

        public init(
            limits: NATSAccountLimits, signing_keys: [String]? = nil, revocations: [String: Int64]? = nil,
            default_permissions: DefaultPermissions
        ) {
            self.limits = limits
            self.signing_keys = signing_keys
            self.revocations = revocations
            self.default_permissions = default_permissions
        }

        // Written by hand only so that an empty `revocations` is left out like an absent one (the Go library omits
        // it too), which keeps account JWTs without revocations byte-identical to those issued before the field.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(limits, forKey: .limits)
            try container.encodeIfPresent(signing_keys, forKey: .signing_keys)
            if let revocations, !revocations.isEmpty { try container.encode(revocations, forKey: .revocations) }
            try container.encode(default_permissions, forKey: .default_permissions)
            try container.encode(type, forKey: .type)
            try container.encode(version, forKey: .version)
        }
    }

    /// Permissions given to users of the account whose JWT has none of its own.
    public struct DefaultPermissions: Codable, Sendable, Equatable {
        public var pub: NATSPermission
        public var sub: NATSPermission
        public init(pub: NATSPermission = .init(), sub: NATSPermission = .init()) {
            self.pub = pub
            self.sub = sub
        }
    }

    public var jti = ""
    public var iat: Int64 = 0
    public var iss = ""
    public var sub: String
    public var name: String?
    public var exp: Int64?
    public var nbf: Int64?
    public var nats: Body

    public static let issuerTypes: [NKeyType] = [.operator]
    public static let subjectType: NKeyType = .account

    public init(
        account publicKey: String, name: String, limits: NATSAccountLimits = .init(), signingKeys: [String]? = nil,
        defaultPermissions: DefaultPermissions = .init(), revocations: [String: Int64] = [:], expires: Date? = nil
    ) {
        self.sub = publicKey
        self.name = name
        self.exp = expires.map { Int64($0.timeIntervalSince1970) }
        self.nats = Body(
            limits: limits, signing_keys: signingKeys, revocations: revocations.isEmpty ? nil : revocations,
            default_permissions: defaultPermissions)
    }
}

/// User claims (`nats.type = "user"`), signed by the account (or one of its signing keys, then `issuer_account`
/// names the account).
public struct UserClaims: NATSClaims, Equatable {
    public struct Body: NATSClaimsBody, Equatable {
        public var pub: NATSPermission
        public var sub: NATSPermission
        public var resp: NATSResponsePermission?
        public var subs: Int64
        public var data: Int64
        public var payload: Int64
        public var bearer_token: Bool?
        public var allowed_connection_types: [String]?
        public var issuer_account: String?
        public var type: String = Self.claimType
        public var version: Int = 2
        public static let claimType = "user"
    }

    public var jti = ""
    public var iat: Int64 = 0
    public var iss = ""
    public var sub: String
    public var name: String?
    public var exp: Int64?
    public var nbf: Int64?
    public var nats: Body

    public static let issuerTypes: [NKeyType] = [.account]
    public static let subjectType: NKeyType = .user

    public init(
        user publicKey: String, name: String, publish: NATSPermission = .init(), subscribe: NATSPermission = .init(),
        response: NATSResponsePermission? = nil, limits: NATSUserLimits = .init(), issuerAccount: String? = nil,
        bearerToken: Bool = false, expires: Date? = nil
    ) {
        self.sub = publicKey
        self.name = name
        self.exp = expires.map { Int64($0.timeIntervalSince1970) }
        self.nats = Body(
            pub: publish, sub: subscribe, resp: response, subs: limits.subscriptions, data: limits.data,
            payload: limits.payload, bearer_token: bearerToken ? true : nil, issuer_account: issuerAccount)
    }
}
