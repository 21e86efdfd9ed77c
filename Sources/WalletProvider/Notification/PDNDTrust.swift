import Foundation
import TesseraJOSE
import X509

/// Who may call the provider's PDND e-service (IT-Wallet "e-Service PDND Catalogue", Wallet Provider: "Notify User
/// Death"). Both JWTs of a call — the PDND voucher (`Authorization: Bearer`) and the consumer's
/// `Agid-JWT-Signature` (ModI INTEGRITY_REST_02) — must verify under this trust: by an `x5c` chaining to one of
/// `roots`, or by a key of `keys` (chosen by `kid`). A provider without it refuses every call.
public struct PDNDTrust: Sendable {
    /// Trust anchors an `x5c` header must chain to (RFC 5280 path validation).
    public var roots: [Certificate]
    /// Public keys for JWTs without `x5c`: PDND's voucher key, the PID Provider's client key.
    public var keys: [JWK]
    /// `aud` values accepted besides the entity identifier and the endpoint's own URL (PDND lets the e-service
    /// declare its audience).
    public var audiences: [String]

    public init(roots: [Certificate] = [], keys: [JWK] = [], audiences: [String] = []) {
        self.roots = roots
        self.keys = keys
        self.audiences = audiences
    }
}
