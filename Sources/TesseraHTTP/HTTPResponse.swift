import Foundation

/// The server's answer, as received.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The media type of `Content-Type` without parameters, lowercased.
    public var mediaType: String? {
        header("Content-Type").map {
            String($0.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        }
    }

    /// Any 3xx: the toolkit's clients never follow redirects (OpenID4VP §14.8), they see them as answers.
    public var isRedirect: Bool { (300..<400).contains(status) }
}
