import Foundation
import TesseraCore

/// A user's credentials for operator mode: the user JWT and the user's seed, which signs the server's nonce.
/// Its creds-file form is the one `nsc` writes and every NATS client reads.
public struct NATSCredentials: Sendable {
    public let jwt: String
    public let userKey: NKeyPair

    /// `userKey` must hold a private key of type user.
    public init(jwt: String, userKey: NKeyPair) throws(NATSError) {
        guard userKey.type == .user, userKey.canSign else { throw .invalidPrefix(expected: "user seed") }
        self.jwt = jwt
        self.userKey = userKey
    }

    /// Reads a creds file: the first `-----…-----` delimited block is the JWT, the second the user seed.
    public init(credsFile text: String) throws(NATSError) {
        guard text.utf8.count <= 64 * 1024 else { throw .malformedCreds }
        var blocks: [String] = []
        var inside = false
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("---"), trimmed.hasSuffix("---") {
                inside.toggle()
            } else if inside, !trimmed.isEmpty {
                blocks.append(trimmed)
            }
        }
        guard blocks.count >= 2 else { throw .malformedCreds }
        try self.init(jwt: blocks[0], userKey: try NKeyPair(seed: blocks[1], expected: .user))
    }

    /// The creds-file text (it holds the seed: write it with mode 0600 and never log it).
    public var credsFile: String {
        """
        -----BEGIN NATS USER JWT-----
        \(jwt)
        ------END NATS USER JWT------

        ************************* IMPORTANT *************************
        NKEY Seed printed below can be used to sign and prove identity.
        NKEYs are sensitive and should be treated as secrets.

        -----BEGIN USER NKEY SEED-----
        \(userKey.seedString ?? "")
        ------END USER NKEY SEED------

        *************************************************************

        """
    }

    /// The CONNECT `sig`: base64url of the Ed25519 signature of the server's `nonce` (INFO), by the user key.
    package func signNonce(_ nonce: String) throws(NATSError) -> String {
        Base64URL.encode(try userKey.sign(Data(nonce.utf8)))
    }
}
