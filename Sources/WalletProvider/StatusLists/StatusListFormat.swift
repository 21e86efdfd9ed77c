import Foundation
import ServiceSupport
import TokenStatusList

/// The form a Status List Token is served in (TSL §8.1, §8.2), chosen from the request's `Accept` (RFC 9110
/// §12.5.1): the JWT unless the CWT is preferred; neither acceptable is 406.
enum StatusListFormat: Sendable, CaseIterable {
    /// `application/statuslist+jwt` (TSL §5.1): the default, also for no `Accept` and for `*/*`.
    case jwt
    /// `application/statuslist+cwt` (TSL §5.2).
    case cwt

    var mediaType: String {
        switch self {
        case .jwt: StatusListMediaType.jwt
        case .cwt: StatusListMediaType.cwt
        }
    }

    /// The form `accept` prefers: each form gets the weight (`q`) of the most specific media range that matches it
    /// (`type/subtype`, then `type/*`, then `*/*`); the heavier wins, the JWT on a tie. A range whose `q` is not a
    /// number in 0…1 counts as absent.
    static func negotiate(accept: String?) throws(WireError) -> StatusListFormat {
        guard let accept, !accept.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "," }) else { return .jwt }
        let ranges = accept.split(separator: ",").compactMap(MediaRange.init)
        let weights = allCases.map { format in (format, MediaRange.weight(of: format.mediaType, in: ranges)) }
        guard let best = weights.max(by: { $0.1 < $1.1 }), best.1 > 0 else {
            throw WireError(
                .notAcceptable, "not_acceptable",
                "a Status List Token is served as \(StatusListMediaType.jwt) or \(StatusListMediaType.cwt)")
        }
        return best.0
    }
}

/// One media range of `Accept` with its weight.
private struct MediaRange {
    let type: String
    let subtype: String
    let q: Double

    init?(_ text: Substring) {
        let parts = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let name = parts.first?.split(separator: "/", omittingEmptySubsequences: false) ?? []
        guard name.count == 2, !name[0].isEmpty, !name[1].isEmpty else { return nil }
        var q = 1.0
        for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
            guard let value = Double(parameter.dropFirst(2)), value >= 0, value <= 1 else { return nil }
            q = value
        }
        type = String(name[0])
        subtype = String(name[1])
        self.q = q
    }

    /// How specifically the range names `mediaType`: 3 exactly, 2 its type, 1 anything, 0 not at all.
    func specificity(for mediaType: String) -> Int {
        let name = mediaType.split(separator: "/")
        guard name.count == 2 else { return 0 }
        if type == name[0], subtype == name[1] { return 3 }
        if type == name[0], subtype == "*" { return 2 }
        return type == "*" && subtype == "*" ? 1 : 0
    }

    /// The weight of the most specific range matching `mediaType`; 0 when none does.
    static func weight(of mediaType: String, in ranges: [MediaRange]) -> Double {
        let matching = ranges.map { ($0.specificity(for: mediaType), $0.q) }.filter { $0.0 > 0 }
        return matching.max { $0.0 < $1.0 }?.1 ?? 0
    }
}
