/// HTML text in which everything interpolated is escaped unless it is `HTML` already, so a page cannot print a value
/// from the request or the database unescaped by accident (HTML Living Standard §13.1: `&`, `<`, `>` in text and
/// `"`, `'` in attribute values are the characters that end a context).
struct HTML: Sendable, ExpressibleByStringInterpolation {
    let markup: String

    init(stringLiteral value: String) { markup = value }
    init(stringInterpolation: Interpolation) { markup = stringInterpolation.markup }
    /// Markup the provider generated itself (never text from outside).
    init(generated markup: String) { self.markup = markup }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) { markup.reserveCapacity(literalCapacity + 32 * interpolationCount) }
        mutating func appendLiteral(_ literal: String) { markup += literal }
        mutating func appendInterpolation(_ text: String) { markup += HTML.escape(text) }
        mutating func appendInterpolation(_ number: Int) { markup += String(number) }
        mutating func appendInterpolation(_ html: HTML) { markup += html.markup }
        mutating func appendInterpolation(_ list: [HTML]) { for item in list { markup += item.markup } }
    }

    /// Text made safe for element content and for quoted attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
