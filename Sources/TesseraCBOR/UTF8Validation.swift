/// Well-formed UTF-8 check (RFC 3629 §4): no overlong forms, no surrogates, nothing above
/// U+10FFFF. Hand-written so the decoder avoids the generic `String(validating:)` path,
/// which costs a metadata lookup per string; ASCII runs are checked eight bytes at a time.
enum UTF8Validation {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var i = 0
        while i < count {
            // Fast path: eight ASCII bytes.
            if i + 8 <= count {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
            }
            let b0 = base[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            @inline(__always) func continuation(_ j: Int) -> Bool { j < count && base[j] & 0xc0 == 0x80 }
            switch b0 {
            case 0xc2...0xdf:
                guard continuation(i + 1) else { return false }
                i += 2
            case 0xe0...0xef:
                guard i + 2 < count else { return false }
                let b1 = base[i + 1]
                // E0 needs A0–BF (no overlong); ED needs 80–9F (no surrogates).
                let low: UInt8 = b0 == 0xe0 ? 0xa0 : 0x80
                let high: UInt8 = b0 == 0xed ? 0x9f : 0xbf
                guard b1 >= low, b1 <= high, continuation(i + 2) else { return false }
                i += 3
            case 0xf0...0xf4:
                guard i + 3 < count else { return false }
                let b1 = base[i + 1]
                // F0 needs 90–BF (no overlong); F4 needs 80–8F (≤ U+10FFFF).
                let low: UInt8 = b0 == 0xf0 ? 0x90 : 0x80
                let high: UInt8 = b0 == 0xf4 ? 0x8f : 0xbf
                guard b1 >= low, b1 <= high, continuation(i + 2), continuation(i + 3) else { return false }
                i += 4
            default:
                return false
            }
        }
        return true
    }
}

extension CBOR {
    /// The text held by `bytes` when they are well-formed UTF-8, the check the decoder applies to every text
    /// string; nil otherwise. For structure readers that read text strings in place.
    public static func validText(_ bytes: UnsafeRawBufferPointer) -> String? {
        let utf8 = bytes.bindMemory(to: UInt8.self)
        guard UTF8Validation.isValid(utf8) else { return nil }
        return String(decoding: utf8, as: UTF8.self)
    }
}
