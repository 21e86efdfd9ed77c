import Foundation

/// Every failure of the NATS module. Cases name the rule broken; nothing secret (seeds, JWTs, tokens) appears in a
/// case or its description.
public enum NATSError: Error, Sendable, Equatable, CustomStringConvertible {
    // nkeys and JWTs
    /// Not RFC 4648 base32 (no padding) or a length that cannot hold a key.
    case invalidEncoding
    /// The CRC16 (XMODEM) of an nkey does not match its contents.
    case invalidChecksum
    /// The nkey prefix is not the kind expected (e.g. a user seed where an account key was required).
    case invalidPrefix(expected: String)
    /// A seed does not hold 32 bytes, or a public key is not 32 bytes.
    case invalidKeyLength
    /// An Ed25519 signature that does not verify.
    case invalidSignature
    /// A JWT that is not three base64url parts with a `{"typ":"JWT","alg":"ed25519-nkey"}` header and JSON claims.
    case malformedJWT(String)
    /// A JWT whose `exp` lies before the instant checked, or whose `nbf` lies after it.
    case jwtExpired
    case jwtNotYetValid
    /// A creds file without a user JWT and a user seed between the `-----BEGIN/END-----` markers.
    case malformedCreds

    // protocol
    /// The server sent bytes that are not the NATS client protocol (or exceed a limit): the connection is closed.
    case protocolViolation(String)
    /// A control line longer than the configured maximum.
    case controlLineTooLong(limit: Int)
    /// A payload larger than the server's `max_payload` (received or about to be sent).
    case payloadTooLarge(size: Int, limit: Int)
    /// A subject, queue group or header that cannot be sent (empty, whitespace, control characters).
    case invalidSubject(String)
    case invalidHeader(String)

    // server errors (-ERR)
    /// `-ERR 'Permissions Violation for Publish to "…"'` or `… for Subscription to "…"`: the connection stays open.
    case permissionViolation(operation: String, subject: String)
    /// `-ERR 'Authorization Violation'` or another authentication failure while connecting.
    case authorizationViolation(String)
    /// Any other `-ERR` text from the server.
    case serverError(String)

    // client state
    /// No server in the list could be reached (initial connect, or reconnect attempts exhausted).
    case noServersAvailable
    /// The client was closed (by `close`, `drain`, or after reconnecting gave up).
    case connectionClosed
    /// The connection dropped while waiting for a PONG or a reply.
    case disconnected
    /// The outbound buffer held while disconnected is full: the message was not accepted.
    case outboundBufferFull(limit: Int)
    /// No reply arrived within the request timeout, or no PONG within the flush timeout.
    case timeout
    /// A request reached no subscriber: the server answered with the `503` status (no responders).
    case noResponders(subject: String)
    /// The TLS configuration could not be used, or the server requires TLS and none was configured.
    case tlsFailure(String)
    /// No TCP connection could be opened to the server.
    case connectFailed(String)
    /// A resolver refused an account JWT pushed to `$SYS.REQ.CLAIMS.UPDATE` (its code and description).
    case claimsUpdateRejected(code: Int, description: String)
    /// The server URL could not be parsed.
    case invalidURL(String)

    public var description: String {
        switch self {
        case .invalidEncoding: return "nkey: not base32 or wrong length"
        case .invalidChecksum: return "nkey: CRC16 mismatch"
        case .invalidPrefix(let expected): return "nkey: wrong prefix, expected \(expected)"
        case .invalidKeyLength: return "nkey: key is not 32 bytes"
        case .invalidSignature: return "nkey: signature does not verify"
        case .malformedJWT(let why): return "JWT: \(why)"
        case .jwtExpired: return "JWT: expired"
        case .jwtNotYetValid: return "JWT: not yet valid"
        case .malformedCreds: return "creds: missing user JWT or seed block"
        case .protocolViolation(let why): return "protocol: \(why)"
        case .controlLineTooLong(let limit): return "protocol: control line longer than \(limit) bytes"
        case .payloadTooLarge(let size, let limit): return "payload of \(size) bytes exceeds max_payload \(limit)"
        case .invalidSubject(let s): return "invalid subject or queue: \(s.debugDescription)"
        case .invalidHeader(let s): return "invalid header: \(s.debugDescription)"
        case .permissionViolation(let op, let subject): return "permissions violation for \(op) to \(subject)"
        case .authorizationViolation(let why): return "authorization failed: \(why)"
        case .serverError(let text): return "server error: \(text)"
        case .noServersAvailable: return "no NATS server could be reached"
        case .connectionClosed: return "connection closed"
        case .disconnected: return "disconnected before the answer arrived"
        case .outboundBufferFull(let limit): return "outbound buffer full (\(limit) bytes) while disconnected"
        case .timeout: return "timed out"
        case .noResponders(let subject): return "no responders for \(subject)"
        case .tlsFailure(let why): return "TLS: \(why)"
        case .connectFailed(let server): return "could not connect to \(server)"
        case .claimsUpdateRejected(let code, let d): return "account JWT rejected (\(code)): \(d)"
        case .invalidURL(let url): return "invalid server URL \(url)"
        }
    }
}
