import Foundation
import TesseraCore
import TesseraJOSE

/// CSRF tokens of the forms shown before there is a session (sign-up, enrolment, login): a double-submit token
/// whose form field is bound to the cookie by an HMAC. The cookie (`tessera_prelogin`, HttpOnly, SameSite=Strict)
/// holds a random nonce; the hidden field holds `issued.HMAC(key, nonce, issued)`.
///
/// Why this shape:
/// - Stateless, like a plain double-submit cookie: nothing is stored for visitors who never log in, so anonymous
///   page views cannot grow a table, and several app instances sharing the provider key accept each other's tokens.
/// - Bound, unlike a plain double-submit cookie: someone able to write but not read the browser's cookies (a sibling
///   subdomain, a response injected over plain http) cannot make up a matching field, because only the server can
///   compute it; and a pair harvested from the server itself stops working after `lifetime`.
/// - A cross-site page can neither read the field (same-origin policy) nor make the browser send the cookie
///   (SameSite=Strict), and the field is checked against the cookie in constant time.
/// Logged-in forms use the session's own `csrf_token` instead.
struct PreLoginCSRF: Sendable {
    static let label = "portal pre-login csrf"
    static let lifetime: TimeInterval = 2 * 3600
    static let fieldName = "csrf"

    let key: PortalKey

    /// A fresh nonce for the cookie (32 random bytes, base64url).
    static func newNonce(_ random: any RandomSource) -> String { Base64URL.encode(random.bytes(32)) }

    /// Whether a cookie value looks like a nonce this server makes (else a new one is issued).
    static func isWellFormed(_ nonce: String) -> Bool {
        nonce.utf8.count == 43 && nonce.utf8.allSatisfy { Base64URL.isAlphabet($0) }
    }

    /// The hidden field for a page shown to the holder of `nonce` at `now`.
    func field(nonce: String, now: Date) -> String {
        let issued = String(Int64(now.timeIntervalSince1970))
        return issued + "." + key.mac(Self.label, [nonce, issued])
    }

    /// Whether `field` was made by this server for the cookie's `nonce` less than `lifetime` ago.
    func check(field: String?, nonce: String?, now: Date) -> Bool {
        guard let field, let nonce, Self.isWellFormed(nonce), field.utf8.count <= 128 else { return false }
        let parts = field.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let issued = Int64(parts[0]) else { return false }
        let age = now.timeIntervalSince1970 - Double(issued)
        guard age >= -60, age <= Self.lifetime else { return false }
        return key.verify(String(parts[1]), Self.label, [nonce, String(parts[0])])
    }
}

extension Base64URL {
    /// RFC 4648 §5 alphabet: A–Z, a–z, 0–9, '-', '_'.
    static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
