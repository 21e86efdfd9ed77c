import Foundation

/// A message delivered to a subscription or as the reply to a request.
public struct NATSMessage: Sendable, Equatable {
    public var subject: String
    public var replyTo: String?
    public var headers: NATSHeaders?
    /// The status line of the header block, if any (e.g. 503 for no responders).
    public var status: NATSStatus?
    public var payload: Data

    public init(subject: String, replyTo: String? = nil, headers: NATSHeaders? = nil, status: NATSStatus? = nil, payload: Data) {
        self.subject = subject
        self.replyTo = replyTo
        self.headers = headers
        self.status = status
        self.payload = payload
    }
}
