import Foundation

/// RFC 4648 §5 base64url without padding (JWT parts and nonce signatures).
enum Base64URL {
    static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> Data? {
        var s = String(text)
        // Standard-alphabet input or padding is not base64url: refuse rather than guess.
        guard !s.contains(where: { $0 == "+" || $0 == "/" || $0 == "=" }) else { return nil }
        s = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if s.count % 4 == 1 { return nil }
        s += String(repeating: "=", count: (4 - s.count % 4) % 4)
        return Data(base64Encoded: s)
    }
}
