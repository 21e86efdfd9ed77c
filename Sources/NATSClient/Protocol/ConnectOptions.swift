import Foundation

/// The JSON of the client's `CONNECT` (NATS client protocol, "CONNECT").
struct ConnectOptions: Encodable {
    var verbose = false
    var pedantic = false
    var tls_required: Bool
    var name: String?
    var lang = "swift"
    var version = "0.1.0"
    var `protocol` = 1
    var echo: Bool
    var headers = true
    /// With `headers`, the server answers a request nobody listens to with a 503 status instead of silence.
    var no_responders = true
    var user: String?
    var pass: String?
    var auth_token: String?
    /// Operator mode: the user JWT and the base64url Ed25519 signature of INFO `nonce` by the user's nkey.
    var jwt: String?
    var sig: String?
    var nkey: String?

    func json() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(self)) ?? Data("{}".utf8))
    }
}
