import Foundation
import SwiftASN1

/// X.509 Time (RFC 5280 §4.1.2.5): UTCTime or GeneralizedTime, both in UTC, converted to `Date` without a calendar.
enum ASN1Time {
    static func date(_ node: ASN1Node) throws -> Date {
        switch node.identifier {
        case .utcTime:
            let time = try UTCTime(derEncoded: node)
            return date(time.year, time.month, time.day, time.hours, time.minutes, Double(time.seconds))
        case .generalizedTime:
            let time = try GeneralizedTime(derEncoded: node)
            return date(
                time.year, time.month, time.day, time.hours, time.minutes, Double(time.seconds) + time.fractionalSeconds)
        default:
            throw AttestationParseError("a validity time is neither UTCTime nor GeneralizedTime")
        }
    }

    /// Seconds since 1970 of a proleptic Gregorian UTC date (days-from-civil; swift-asn1 has checked the ranges).
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hours: Int, _ minutes: Int, _ seconds: Double) -> Date {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let whole = Double(days * 86_400 + hours * 3_600 + minutes * 60)
        return Date(timeIntervalSince1970: whole + seconds)
    }
}
