import Foundation

/// A calendar date without time, `full-date` as tag 1004 (RFC 8943), e.g. ISO 18013-5
/// `birth_date`. Kept as the exact text "YYYY-MM-DD" that was received.
public struct FullDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) throws(CBORError) {
        guard (0...9999).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day)
        else { throw .invalidValue("invalid full-date \(year)-\(month)-\(day)", path: "", offset: nil) }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses RFC 3339 `full-date` ("2024-02-29").
    public init(string: String) throws(CBORError) {
        let utf8 = Array(string.utf8)
        guard utf8.count == 10, utf8[4] == 0x2d, utf8[7] == 0x2d,
            let y = Int(string.prefix(4)), let m = Int(string.dropFirst(5).prefix(2)),
            let d = Int(string.suffix(2)),
            utf8.enumerated().allSatisfy({ $0.offset == 4 || $0.offset == 7 || (0x30...0x39).contains($0.element) })
        else { throw .invalidValue("not a full-date: \"\(string.prefix(32))\"", path: "", offset: nil) }
        try self.init(year: y, month: m, day: d)
    }

    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    /// `1004("YYYY-MM-DD")`.
    public var cbor: CBOR { .tagged(CBORTag.fullDate, .text(description)) }

    /// Reads tag 1004 text.
    public init(_ item: CBOR) throws(CBORError) {
        guard case .tagged(CBORTag.fullDate, .text(let s)) = item else {
            throw .typeMismatch(expected: "full-date (tag 1004)", found: item.kindName, path: "", offset: nil)
        }
        try self.init(string: s)
    }

    public static func < (a: FullDate, b: FullDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// `tdate`: a date-time as tag 0 text (RFC 8949 §3.4.1), as ISO 18013-5 uses for
/// `signed`, `validFrom`, `validUntil`. ISO 18013-5 §9.1.2.4 requires the UTC form
/// without fractional seconds when issuing; received values with fractions or offsets are read.
public struct TDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let date: Date
    /// The text as received (or as produced when built from a `Date`).
    public let text: String

    public init(_ date: Date) {
        let whole = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        self.date = whole
        self.text = TDate.format(whole)
    }

    public init(string: String) throws(CBORError) {
        guard let d = TDate.parse(string) else {
            throw .invalidValue("not an RFC 3339 date-time: \"\(string.prefix(40))\"", path: "", offset: nil)
        }
        self.date = d
        self.text = string
    }

    public init(_ item: CBOR) throws(CBORError) {
        guard case .tagged(CBORTag.dateTimeString, .text(let s)) = item else {
            throw .typeMismatch(expected: "tdate (tag 0)", found: item.kindName, path: "", offset: nil)
        }
        try self.init(string: s)
    }

    /// `0("…")` with the exact text held.
    public var cbor: CBOR { .tagged(CBORTag.dateTimeString, .text(text)) }
    public var description: String { text }

    public static func < (a: TDate, b: TDate) -> Bool { a.date < b.date }
    public static func == (a: TDate, b: TDate) -> Bool { a.text == b.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    static func format(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: date)
    }

    static func parse(_ s: String) -> Date? {
        // RFC 3339 date-time: the 'T' and 'Z' are case-insensitive (§5.6).
        let upper = s.uppercased()
        guard upper.utf8.count >= 20, upper.utf8.count <= 40 else { return nil }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let d = plain.date(from: upper) { return d }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: upper)
    }
}

/// A value carried as one CBOR item (a tagged date, say): Codable through that item, with errors
/// reported at the coding path where the item sits.
public protocol CBORItemCodable: Codable {
    init(_ item: CBOR) throws(CBORError)
    var cbor: CBOR { get }
}

extension CBORItemCodable {
    public init(from decoder: any Decoder) throws {
        do {
            try self.init(try decoder.singleValueContainer().decode(CBOR.self))
        } catch let error as CBORError {
            throw error.located(at: decoder.codingPath)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(cbor)
    }
}

extension FullDate: CBORItemCodable {}
extension TDate: CBORItemCodable {}
