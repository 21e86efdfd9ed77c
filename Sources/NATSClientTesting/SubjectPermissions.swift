import NATSClient
/// One direction (publish or subscribe) of a user's permissions, as nats-server applies NATS JWT v2 `pub`/`sub`:
/// an empty or absent `allow` list allows every subject, a non-empty one only the subjects its patterns match, and
/// `deny` wins over `allow`.
struct SubjectPermission: Sendable {
    /// nil: no allow list (everything allowed).
    let allow: SubjectIndex<Bool>?
    let deny: SubjectIndex<Bool>?

    init(_ permission: NATSPermission) {
        let allow = permission.allow ?? [], deny = permission.deny ?? []
        self.allow = allow.isEmpty ? nil : SubjectIndex(patterns: allow, value: true)
        self.deny = deny.isEmpty ? nil : SubjectIndex(patterns: deny, value: true)
    }

    /// Publishing to `subject`, or subscribing to it: a subscription subject with wildcards is allowed only when an
    /// allow pattern covers it (`foo.*` allows SUB `foo.*`, not SUB `foo.>` nor `>`), as nats-server's
    /// `canSubscribe` matches it against the allow list.
    func permits(_ subject: String) -> Bool {
        if let allow, !allow.contains(subject) { return false }
        if let deny, deny.contains(subject) { return false }
        return true
    }

    /// Whether a message on `subject` may be delivered: nats-server filters messages on denied subjects out of a
    /// wider wildcard subscription it allowed (SUB `x.>` with `x.secret` denied receives no `x.secret`).
    func delivers(_ subject: String) -> Bool {
        guard let deny else { return true }
        return !deny.contains(subject)
    }
}

/// The permissions of one connection: the user JWT's own (`pub`, `sub`), or the account's `default_permissions`
/// when the user JWT has none at all (nats-server's `buildInternalNkeyUser`).
struct UserPermissions: Sendable {
    let publish: SubjectPermission
    let subscribe: SubjectPermission

    init(user: UserClaims.Body, account: AccountClaims.Body) {
        let own = [user.pub.allow, user.pub.deny, user.sub.allow, user.sub.deny].contains { !($0 ?? []).isEmpty }
        let pub = own ? user.pub : account.default_permissions.pub
        let sub = own ? user.sub : account.default_permissions.sub
        publish = SubjectPermission(pub)
        subscribe = SubjectPermission(sub)
    }
}
