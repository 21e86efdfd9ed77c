import TesseraHTTP

/// Character rules for request values.
enum ParameterCharset {
    /// §5.2: `nonce` and `state` contain only ASCII URL-safe characters (letters, digits, `-`, `.`, `_`, `~`).
    static func isURLSafe(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(FormURLEncoding.isUnreserved)
    }

    /// §6.1, §6.3: DCQL `id` values are non-empty and consist of alphanumerics, `_` and `-`.
    static func isDCQLIdentifier(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    return true
                default:
                    return false
                }
            }
    }
}
