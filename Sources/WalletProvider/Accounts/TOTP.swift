import Crypto
import Foundation
import TesseraCore

/// RFC 6238 time-based one-time passwords (HOTP, RFC 4226, over T = floor((now − T0) / X)). The portal uses
/// SHA-1, 30-second steps and 6 digits, what every authenticator app does by default.
public struct TOTP: Sendable {
    public enum Algorithm: String, Sendable { case sha1 = "SHA1", sha256 = "SHA256", sha512 = "SHA512" }

    public let secret: [UInt8]
    public let algorithm: Algorithm
    public let digits: Int
    public let step: TimeInterval

    public init(secret: [UInt8], algorithm: Algorithm = .sha1, digits: Int = 6, step: TimeInterval = 30) {
        self.secret = secret
        self.algorithm = algorithm
        self.digits = min(max(digits, 6), 10)
        self.step = step
    }

    /// The time step counter T at `instant` (RFC 6238 §4.2, T0 = 0).
    public func counter(at instant: Date) -> Int64 { Int64((instant.timeIntervalSince1970 / step).rounded(.down)) }

    /// The code for time step `counter` (RFC 4226 §5.3 dynamic truncation).
    public func code(counter: Int64) -> String {
        var message = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { message[i] = UInt8(truncatingIfNeeded: UInt64(bitPattern: counter) >> UInt64(56 - 8 * i)) }
        let key = SymmetricKey(data: secret)
        let mac: [UInt8]
        switch algorithm {
        case .sha1: mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
        case .sha256: mac = Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        case .sha512: mac = Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
        }
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = (UInt64(mac[offset] & 0x7F) << 24) | (UInt64(mac[offset + 1]) << 16)
            | (UInt64(mac[offset + 2]) << 8) | UInt64(mac[offset + 3])
        var modulus: UInt64 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    public func code(at instant: Date) -> String { code(counter: counter(at: instant)) }

    /// The time step a submitted code matches, within ±`window` steps (RFC 6238 §5.2 allows for clock drift),
    /// compared in constant time; nil when none does. The caller refuses a step it already accepted (replay).
    public func matchingCounter(_ submitted: String, at instant: Date, window: Int64 = 1) -> Int64? {
        let now = counter(at: instant)
        var match: Int64?
        for candidate in (now - window)...(now + window) {
            if ConstantTime.equal(Array(code(counter: candidate).utf8), Array(submitted.utf8)) { match = candidate }
        }
        return match
    }

    /// The `otpauth://totp/` URI authenticator apps scan from a QR code.
    public func provisioningURI(account: String, issuer: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~@"))
        let label = (issuer + ":" + account).addingPercentEncoding(withAllowedCharacters: allowed) ?? account
        let issuerParameter = issuer.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(issuerParameter)"
            + "&algorithm=\(algorithm.rawValue)&digits=\(digits)&period=\(Int(step))"
    }
}

extension TOTP {
    /// From the base32 secret of an `otpauth://` URI (what the account API returns).
    public init?(base32Secret: String) {
        // Authenticator apps show secrets in either case, and some issuers pad them (RFC 4648 §3.2).
        var text = Substring(base32Secret.uppercased())
        while text.hasSuffix("=") { text = text.dropLast() }
        guard let secret = Base32.decode(text), !secret.isEmpty else { return nil }
        self.init(secret: secret)
    }
}
