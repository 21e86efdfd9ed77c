import Argon2
import Crypto
import Foundation
import ServiceSupport
import TesseraCore
import TesseraJOSE

/// Accounts of the portal and of the wallet app: a password (Argon2id, RFC 9106) and a TOTP second factor
/// (RFC 6238), both required to log in; five failures in a row lock the account for 15 minutes.
struct AccountService: Sendable {
    static let failureLimit = 5
    static let lockout: TimeInterval = 15 * 60
    static let issuer = "Tessera Wallet Provider"

    let store: AccountStore
    let configuration: WalletProviderConfiguration
    let passwordParameters: Argon2Parameters

    struct SignedUp: Sendable {
        let accountID: String
        let totp: TOTP
        let provisioningURI: String
    }

    struct Session: Sendable {
        let token: String
        let accountID: String
        let csrfToken: String
        let expiresAt: Date
    }

    /// The second factor of an account between sign-up and its first accepted code: what an enrolment page shows.
    struct PendingEnrolment: Sendable {
        let email: String
        let totp: TOTP
        var secretBase32: String { Base32.encode(totp.secret) }
        var provisioningURI: String { totp.provisioningURI(account: email, issuer: AccountService.issuer) }
    }

    /// Creates an account whose second factor is pending until a first valid TOTP code: at the first login, or at
    /// the portal's enrolment (`confirmEnrolment`).
    func signUp(email: String, password: String) async throws(WireError) -> SignedUp {
        guard Self.isPlausibleEmail(email) else { throw WireError(.badRequest, "invalid_request", "email is not an e-mail address") }
        guard (12...256).contains(password.count) else {
            throw WireError(.badRequest, "invalid_request", "the password must have 12 to 256 characters")
        }
        let salt = Array(configuration.random.bytes(16))
        let hash: String
        do {
            hash = try Argon2.encode(password: Array(password.utf8), salt: salt, parameters: passwordParameters)
        } catch {
            throw .server
        }
        let secret = Array(configuration.random.bytes(20))
        let id = Base64URL.encode(configuration.random.bytes(16))
        guard try await store.insert(id: id, email: email, passwordHash: hash, totpSecret: Base32.encode(secret), now: configuration.clock.now())
        else { throw WireError(.badRequest, "invalid_request", "an account with this e-mail address exists") }
        let totp = TOTP(secret: secret)
        return SignedUp(accountID: id, totp: totp, provisioningURI: totp.provisioningURI(account: email, issuer: Self.issuer))
    }

    /// Both factors, checked in constant time; the same answer for an unknown e-mail, a wrong password and a
    /// wrong code, so the endpoint tells nothing about which was wrong.
    func logIn(email: String, password: String, code: String) async throws(WireError) -> Session {
        let now = configuration.clock.now()
        let denied = WireError(.unauthorized, "invalid_grant", "the e-mail address, password or code is wrong")
        guard let account = try await store.find(email: email) else {
            _ = try? Argon2.encode(password: Array(password.utf8), salt: Array(repeating: 0, count: 16), parameters: passwordParameters)
            throw denied
        }
        guard account.locked_until <= now.timeIntervalSince1970 else {
            throw WireError(.tooManyRequests, "temporarily_unavailable", "too many failed logins: the account is locked for a while")
        }
        let passwordOK = (try? Argon2.verify(password: Array(password.utf8), encoded: account.password_hash)) ?? false
        var step: Int64?
        if let secret = account.totp_secret.flatMap(Base32.decode) {
            step = TOTP(secret: secret).matchingCounter(code, at: now)
        }
        guard passwordOK, let step, try await store.acceptLogin(id: account.id, totpStep: step) else {
            try await store.recordFailure(id: account.id, limit: Self.failureLimit, lockUntil: now.addingTimeInterval(Self.lockout))
            throw denied
        }
        return try await openSession(accountID: account.id, now: now)
    }

    /// The account's pending second factor, or nil when there is no such account or a code was already accepted:
    /// the secret is shown only while nobody has proven to hold it.
    func pendingEnrolment(accountID: String) async throws(WireError) -> PendingEnrolment? {
        guard let account = try await store.find(id: accountID), let secret = Self.pendingSecret(account) else { return nil }
        return PendingEnrolment(email: account.email, totp: TOTP(secret: secret))
    }

    /// Enrolment (RFC 6238): the first code of the authenticator app turns the pending second factor on and opens a
    /// session. The caller knows the account only from the ticket its sign-up handed out (the password was set a
    /// moment before). A wrong code counts as a failed login: the same lockout bounds guessing.
    func confirmEnrolment(accountID: String, code: String) async throws(WireError) -> Session {
        let now = configuration.clock.now()
        guard let account = try await store.find(id: accountID), let secret = Self.pendingSecret(account) else {
            throw WireError(.conflict, "invalid_request", "this account has no pending second factor")
        }
        guard account.locked_until <= now.timeIntervalSince1970 else {
            throw WireError(.tooManyRequests, "temporarily_unavailable", "too many failed logins: the account is locked for a while")
        }
        guard let step = TOTP(secret: secret).matchingCounter(code, at: now),
            try await store.enableSecondFactor(id: account.id, totpStep: step)
        else {
            try await store.recordFailure(id: account.id, limit: Self.failureLimit, lockUntil: now.addingTimeInterval(Self.lockout))
            throw WireError(.unauthorized, "invalid_grant", "the code is wrong")
        }
        return try await openSession(accountID: account.id, now: now)
    }

    /// The TOTP secret of an account whose second factor is not enabled yet.
    private static func pendingSecret(_ account: AccountRow) -> [UInt8]? {
        guard !account.totp_enabled, let secret = account.totp_secret.flatMap(Base32.decode), !secret.isEmpty else { return nil }
        return secret
    }

    private func openSession(accountID: String, now: Date) async throws(WireError) -> Session {
        let token = Base64URL.encode(configuration.random.bytes(32))
        let csrf = Base64URL.encode(configuration.random.bytes(32))
        let expiresAt = now.addingTimeInterval(configuration.sessionLifetime)
        try await store.createSession(id: Self.sessionID(token), accountID: accountID, csrfToken: csrf, expiresAt: expiresAt)
        return Session(token: token, accountID: accountID, csrfToken: csrf, expiresAt: expiresAt)
    }

    /// The live session a token opens, or nil.
    func session(token: String) async throws(WireError) -> SessionRow? {
        guard !token.isEmpty, token.utf8.count <= 128 else { return nil }
        return try await store.session(id: Self.sessionID(token), now: configuration.clock.now())
    }

    func logOut(token: String) async throws(WireError) {
        try await store.deleteSession(id: Self.sessionID(token))
    }

    /// Sessions are stored as SHA-256 of the token.
    static func sessionID(_ token: String) -> String { Base64URL.encode(SHA256.hash(data: Data(token.utf8))) }

    static func isPlausibleEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return email.utf8.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !email.contains(where: { $0.isWhitespace })
    }
}
