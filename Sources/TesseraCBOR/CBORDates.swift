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
        // "YYYY-MM-DD" read straight from the UTF-8 view: no array or substring per date.
        var year = 0
        var month = 0
        var day = 0
        var wellFormed = string.utf8.count == 10
        for (offset, byte) in string.utf8.enumerated() where wellFormed {
            if offset == 4 || offset == 7 {
                wellFormed = byte == 0x2d
                continue
            }
            guard (0x30...0x39).contains(byte) else {
                wellFormed = false
                continue
            }
            let digit = Int(byte - 0x30)
            if offset < 4 {
                year = year * 10 + digit
            } else if offset < 7 {
                month = month * 10 + digit
            } else {
                day = day * 10 + digit
            }
        }
        guard wellFormed else { throw .invalidValue("not a full-date: \"\(string.prefix(32))\"", path: "", offset: nil) }
        try self.init(year: year, month: month, day: day)
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

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC. Hand-written: a Foundation date formatter costs an ICU set-up per use.
    static func format(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = civil(fromDays: days)
        return String(
            format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", y, m, d, secondOfDay / 3600, secondOfDay / 60 % 60,
            secondOfDay % 60)
    }

    /// RFC 3339 §5.6 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, 'T' and 'Z' in either case.
    static func parse(_ s: String) -> Date? {
        let b = Array(s.utf8)
        guard b.count >= 20, b.count <= 40 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int64? {
            var v: Int64 = 0
            for i in at..<(at + count) {
                guard i < b.count, (0x30...0x39).contains(b[i]) else { return nil }
                v = v * 10 + Int64(b[i] - 0x30)
            }
            return v
        }
        guard let year = digits(0, 4), b[4] == 0x2d, let month = digits(5, 2), b[7] == 0x2d, let day = digits(8, 2),
            b[10] == 0x54 || b[10] == 0x74, let hour = digits(11, 2), b[13] == 0x3a, let minute = digits(14, 2),
            b[16] == 0x3a, let second = digits(17, 2),
            (1...12).contains(month), day >= 1, day <= Int64(FullDate.daysIn(month: Int(month), year: Int(year))),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 0x2e {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, (0x30...0x39).contains(b[i]) {
                fraction += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset: Int64 = 0
        guard i < b.count else { return nil }
        switch b[i] {
        case 0x5a, 0x7a:
            i += 1
        case 0x2b, 0x2d:
            guard let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 0x3a, let om = digits(i + 4, 2), oh < 24, om < 60
            else { return nil }
            offset = (oh * 3600 + om * 60) * (b[i] == 0x2b ? 1 : -1)
            i += 6
        default:
            return nil
        }
        guard i == b.count else { return nil }
        // A leap second (:60) is read as the following second.
        let seconds = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The inverse of `days(fromCivil:)`.
    static func civil(fromDays z: Int64) -> (Int64, Int64, Int64) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
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
