import Foundation

/// Which account's pending enrolment a browser may see, between sign-up and the first TOTP code:
/// `accountID.expires.HMAC(key, accountID, expires)` in the HttpOnly `tessera_enrolment` cookie. Only the sign-up
/// that created the account hands it out; it opens nothing but that account's enrolment page, only while the second
/// factor is still pending (`AccountService.pendingEnrolment`), and for ten minutes.
struct EnrolmentTicket: Sendable {
    static let label = "portal enrolment ticket"
    static let lifetime: TimeInterval = 10 * 60

    let key: PortalKey

    func issue(accountID: String, now: Date) -> String {
        let expires = String(Int64(now.addingTimeInterval(Self.lifetime).timeIntervalSince1970))
        return accountID + "." + expires + "." + key.mac(Self.label, [accountID, expires])
    }

    /// The account id of a valid, unexpired ticket, else nil.
    func accountID(_ ticket: String?, now: Date) -> String? {
        guard let ticket, ticket.utf8.count <= 256 else { return nil }
        let parts = ticket.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let expires = Int64(parts[1]), Double(expires) > now.timeIntervalSince1970,
            key.verify(parts[2], Self.label, [parts[0], parts[1]])
        else { return nil }
        return parts[0]
    }
}
