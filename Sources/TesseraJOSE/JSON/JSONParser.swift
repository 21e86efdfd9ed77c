/// Strict recursive-descent JSON parser (RFC 8259) over a byte buffer. Every read is bounds-checked against
/// `end`; nesting is bounded by `JSONLimits.maxDepth`, so recursion depth is bounded too.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    private let maxDepth: Int
    private var position = 0
    private var depth = 0
    /// Reused for strings that contain escapes.
    private var scratch: [UInt8] = []
    /// Elements of the arrays being parsed, innermost last: each finished array is copied out once at its exact
    /// size instead of growing an array of its own element by element.
    private var elementStack: [JSONValue] = []
    /// Members of the objects being parsed, innermost last (as `elementStack`).
    private var memberStack: [JSONObject.Member] = []

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge(size: bytes.count, limit: limits.maxBytes) }
        var parser = JSONParser(bytes: bytes, end: bytes.count, maxDepth: limits.maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == parser.end else { throw .trailingContent(offset: parser.position) }
        return value
    }

    /// A top-level array read into a `JSONShortArray` (no array built); nil when the text is JSON but not an array.
    static func parseShortArray(
        _ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits
    ) throws(JSONError) -> JSONShortArray? {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge(size: bytes.count, limit: limits.maxBytes) }
        var parser = JSONParser(bytes: bytes, end: bytes.count, maxDepth: limits.maxDepth)
        parser.skipWhitespace()
        var array: JSONShortArray? = nil
        if parser.position < parser.end, bytes[parser.position] == UInt8(ascii: "[") {
            var elements = JSONShortArray()
            try parser.readArray { _, element in elements.append(element) }
            array = elements
        } else {
            _ = try parser.parseValue()
        }
        parser.skipWhitespace()
        guard parser.position == parser.end else { throw .trailingContent(offset: parser.position) }
        return array
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, end: Int, maxDepth: Int) {
        self.bytes = bytes
        self.end = end
        self.maxDepth = maxDepth
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONError) -> JSONValue {
        guard position < end else { throw .unexpectedEnd(offset: position) }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw .unexpectedByte(offset: position, byte: bytes[position])
        }
    }

    private mutating func enter() throws(JSONError) {
        depth += 1
        guard depth <= maxDepth else { throw .depthLimitExceeded(offset: position, limit: maxDepth) }
    }

    private mutating func parseObject() throws(JSONError) -> JSONObject {
        try enter()
        position += 1  // {
        let base = memberStack.count
        if memberStack.capacity == 0 { memberStack.reserveCapacity(Self.initialStackCapacity) }
        defer { memberStack.removeSubrange(base...) }
        // Duplicate check: linear for small objects; past the threshold, the name → position index that the
        // object keeps anyway.
        var index: [String: Int]? = nil
        skipWhitespace()
        if position < end, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return JSONObject()
        }
        while true {
            guard position < end else { throw .unexpectedEnd(offset: position) }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw .unexpectedByte(offset: position, byte: bytes[position])
            }
            let nameOffset = position
            let name = try parseString()
            let count = memberStack.count - base
            if index != nil {
                guard index?.updateValue(count, forKey: name) == nil else {
                    throw .duplicateMemberName(name, offset: nameOffset)
                }
            } else {
                for slot in base..<memberStack.count where memberStack[slot].key == name {
                    throw .duplicateMemberName(name, offset: nameOffset)
                }
                if count >= JSONObject.indexThreshold {
                    var built = [String: Int](minimumCapacity: count * 2 + 2)
                    for slot in base..<memberStack.count { built[memberStack[slot].key] = slot - base }
                    built[name] = count
                    index = built
                }
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let value = try parseValue()
            memberStack.append((name, value))
            skipWhitespace()
            guard position < end else { throw .unexpectedEnd(offset: position) }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return JSONObject(uncheckedMembers: Self.takeFinished(&memberStack, from: base), index: index)
            default:
                throw .unexpectedByte(offset: position, byte: bytes[position])
            }
        }
    }

    private mutating func parseArray() throws(JSONError) -> [JSONValue] {
        let base = elementStack.count
        if elementStack.capacity == 0 { elementStack.reserveCapacity(Self.initialStackCapacity) }
        defer { elementStack.removeSubrange(base...) }
        try readArray { parser, element in parser.elementStack.append(element) }
        if elementStack.count == base { return [] }
        return Self.takeFinished(&elementStack, from: base)
    }

    /// Reads `[ elements ]`, handing each element to `take` as soon as it is parsed.
    private mutating func readArray(_ take: (inout Self, JSONValue) -> Void) throws(JSONError) {
        try enter()
        position += 1  // [
        skipWhitespace()
        if position < end, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return
        }
        while true {
            let element = try parseValue()
            take(&self, element)
            skipWhitespace()
            guard position < end else { throw .unexpectedEnd(offset: position) }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return
            default:
                throw .unexpectedByte(offset: position, byte: bytes[position])
            }
        }
    }

    /// Room the stacks get on first use: a Disclosure (3 elements) or a small header fits without regrowing.
    static let initialStackCapacity = 4

    /// The finished container's entries, `stack[base...]`. The outermost open container hands over the stack's
    /// own storage (one allocation fewer; the stack starts afresh). An inner one is copied out at its exact size:
    /// never `Array(stack[base...])`, which can share the stack's buffer and make the removal that follows copy
    /// the whole stack.
    private static func takeFinished<Entry>(_ stack: inout [Entry], from base: Int) -> [Entry] {
        if base == 0 {
            defer { stack = [] }
            return stack
        }
        return [Entry](unsafeUninitializedCapacity: stack.count - base) { buffer, initialized in
            for entry in stack[base...] {
                buffer.initializeElement(at: initialized, to: entry)
                initialized += 1
            }
        }
    }

    // MARK: Strings (RFC 8259 §7)

    private mutating func parseString() throws(JSONError) -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes. Eight bytes at a time while they are plain ASCII (no quote, backslash, control
        // character or non-ASCII byte), then byte by byte to the closing quote, validating UTF-8 on the way.
        if let base = bytes.baseAddress {
            while end - position >= 8 {
                let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
                if Self.mayNeedAttention(word) { break }
                position += 8
            }
        }
        while position < end {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw .controlCharacterInString(offset: position) }
            if byte < 0x80 {
                position += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        guard position < end else { throw .unexpectedEnd(offset: position) }
        // Slow path: copy what was scanned, then decode escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes[start..<position])
        while position < end {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0..<0x20:
                throw .controlCharacterInString(offset: position)
            case 0x20..<0x80:
                scratch.append(byte)
                position += 1
            default:
                let sequenceStart = position
                try skipUTF8Sequence()
                scratch.append(contentsOf: bytes[sequenceStart..<position])
            }
        }
        throw .unexpectedEnd(offset: position)
    }

    /// Whether any of the eight bytes in `word` is a quote, a backslash, below 0x20 or above 0x7F (exact: each
    /// test is the classic "has a zero byte" / "has a byte less than n" bit trick, which has no false negatives).
    private static func mayNeedAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let hasQuote = (quote &- ones) & ~quote & highs
        let hasBackslash = (backslash &- ones) & ~backslash & highs
        let hasControl = (word &- ones &* 0x20) & ~word & highs
        return (hasQuote | hasBackslash | hasControl | (word & highs)) != 0
    }

    private mutating func parseEscape() throws(JSONError) {
        let escapeOffset = position
        position += 1  // backslash
        guard position < end else { throw .unexpectedEnd(offset: position) }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): scratch.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): scratch.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4(escapeOffset: escapeOffset)
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate (RFC 8259 §7).
                guard position + 1 < end, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                else { throw .invalidUnicodeEscape(offset: escapeOffset) }
                position += 2
                let low = try readHex4(escapeOffset: escapeOffset)
                guard (0xDC00...0xDFFF).contains(low) else { throw .invalidUnicodeEscape(offset: escapeOffset) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw .invalidUnicodeEscape(offset: escapeOffset)
            }
            appendUTF8(scalar)
        default:
            throw .invalidEscape(offset: escapeOffset)
        }
    }

    private mutating func readHex4(escapeOffset: Int) throws(JSONError) -> UInt32 {
        guard end - position >= 4 else { throw .invalidUnicodeEscape(offset: escapeOffset) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .invalidUnicodeEscape(offset: escapeOffset)
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | (scalar >> 6)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | (scalar >> 12)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            scratch.append(UInt8(0xF0 | (scalar >> 18)))
            scratch.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// Advances over one well-formed multi-byte UTF-8 sequence (RFC 3629 §4: no overlong forms, no surrogates,
    /// nothing above U+10FFFF) starting at `position`.
    private mutating func skipUTF8Sequence() throws(JSONError) {
        let lead = bytes[position]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: throw .invalidUTF8(offset: position)
        }
        guard end - position >= length else { throw .invalidUTF8(offset: position) }
        let second = bytes[position + 1]
        guard second >= lower, second <= upper else { throw .invalidUTF8(offset: position) }
        var offset = 2
        while offset < length {
            guard bytes[position + offset] & 0xC0 == 0x80 else { throw .invalidUTF8(offset: position) }
            offset += 1
        }
        position += length
    }

    // MARK: Numbers (RFC 8259 §6)

    private mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = position
        var negative = false
        if bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        guard position < end, isDigit(bytes[position]) else { throw .invalidNumber(offset: start) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < end, isDigit(bytes[position]) { throw .invalidNumber(offset: start) }
        } else {
            while position < end, isDigit(bytes[position]) { position += 1 }
        }
        let integerEnd = position
        var isInteger = true
        if position < end, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < end, isDigit(bytes[position]) else { throw .invalidNumber(offset: start) }
            while position < end, isDigit(bytes[position]) { position += 1 }
        }
        if position < end, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < end, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < end, isDigit(bytes[position]) else { throw .invalidNumber(offset: start) }
            while position < end, isDigit(bytes[position]) { position += 1 }
        }
        if isInteger, let value = integerValue(from: negative ? start + 1 : start, to: integerEnd, negative: negative) {
            return .integer(value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw .numberOutOfRange(offset: start) }
        return .number(value)
    }

    /// The digits in `from..<to` as an Int64, or nil on overflow.
    private func integerValue(from: Int, to: Int, negative: Bool) -> Int64? {
        var value: Int64 = 0
        for index in from..<to {
            let digit = Int64(bytes[index] &- UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: Tokens

    private mutating func skipWhitespace() {
        while position < end {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws(JSONError) {
        guard position < end else { throw .unexpectedEnd(offset: position) }
        guard bytes[position] == byte else { throw .unexpectedByte(offset: position, byte: bytes[position]) }
        position += 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        let pointer = literal.utf8Start
        for offset in 0..<count {
            guard position < end else { throw .unexpectedEnd(offset: position) }
            guard bytes[position] == pointer[offset] else {
                throw .unexpectedByte(offset: position, byte: bytes[position])
            }
            position += 1
        }
    }
}
