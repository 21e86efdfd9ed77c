import TesseraCore

/// The ids a vault makes and the ids it accepts from the app.
enum VaultID {
    /// 128 random bits in RFC 4648 base32: session, connection, message, credential and event ids. Letters and digits
    /// only, so an id typed after a command (`tessera vault connect revoke ID`) is never read as an option.
    static func make(_ random: any RandomSource) -> String { Base32.encode(random.bytes(16)) }

    /// Event and session ids become a subject token of the reply (or a row id): letters, digits, `-` and `_`, at
    /// most 64.
    static func isToken(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 }
    }
}
