import Foundation
import TesseraJOSE

/// The VP Token (§8.1): a JSON object whose keys are credential query ids and whose values are non-empty arrays
/// of presentations (strings for SD-JWT VC and mdoc; objects for some W3C formats).
public struct VPToken: Sendable, Hashable {
    /// Query id → presentations, in the order added.
    public let entries: [(queryId: String, presentations: [JSONValue])]

    /// A VP Token from presentations per query id.
    /// - Throws: `OpenID4VPError.invalidVPToken` when it is empty, a query id appears twice, or one has no presentation.
    public init(entries: [(queryId: String, presentations: [JSONValue])]) throws(OpenID4VPError) {
        var seen = Set<String>()
        for entry in entries {
            guard seen.insert(entry.queryId).inserted else { throw .invalidVPToken("query id \(entry.queryId) appears twice") }
            guard !entry.presentations.isEmpty else { throw .invalidVPToken("no presentation for \(entry.queryId)") }
        }
        guard !entries.isEmpty else { throw .invalidVPToken("the vp_token is empty") }
        self.entries = entries
    }

    /// Reads a received `vp_token` (§8.1): an object of non-empty arrays of strings or objects.
    public init(json: JSONObject) throws(OpenID4VPError) {
        var entries: [(queryId: String, presentations: [JSONValue])] = []
        for member in json {
            guard let array = member.value.arrayValue else {
                throw .invalidVPToken("the value for \(member.key) is not an array")
            }
            for presentation in array {
                switch presentation {
                case .string, .object: continue
                default: throw .invalidVPToken("a presentation for \(member.key) is neither a string nor an object")
                }
            }
            entries.append((member.key, array))
        }
        try self.init(entries: entries)
    }

    /// The presentations for `queryId`, or nil when the token has none for it.
    public subscript(queryId: String) -> [JSONValue]? {
        entries.first { $0.queryId == queryId }?.presentations
    }

    /// The `vp_token` JSON object.
    public var json: JSONObject {
        var object = JSONObject()
        for entry in entries { object[entry.queryId] = .array(entry.presentations) }
        return object
    }

    /// Equal when the JSON objects are equal (entry order aside).
    public static func == (lhs: VPToken, rhs: VPToken) -> Bool { lhs.json == rhs.json }
    /// Hashes the JSON object, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }
}

/// An Authorization Error Response (RFC 6749 §4.1.2.1, OpenID4VP §8.5).
public struct AuthorizationErrorResponse: Sendable, Hashable {
    /// The `error` code (§8.5).
    public var error: AuthorizationErrorCode
    /// `error_description`, already reduced to the characters RFC 6749 §4.1.2.1 allows (see `init`).
    public var errorDescription: String?
    /// `state` echoed from the request.
    public var state: String?

    /// `errorDescription` is reduced to the characters RFC 6749 §4.1.2.1 allows.
    public init(error: AuthorizationErrorCode, errorDescription: String? = nil, state: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription.map(ErrorText.sanitized)
        self.state = state
    }

    /// The response for a failure: its §8.5 code and rule description.
    public init(_ failure: OpenID4VPError, state: String?) {
        self.init(error: failure.errorCode, errorDescription: failure.description, state: state)
    }
}

/// What the wallet sends back: presentations, or an error.
public enum AuthorizationResponse: Sendable, Hashable {
    /// The VP Token, and the request's `state` to echo.
    case vpToken(VPToken, state: String?)
    /// An error response (§8.5).
    case error(AuthorizationErrorResponse)

    /// The response parameters as top-level members (§8.1; the JWT payload of §8.3).
    public var parameters: JSONObject {
        var object = JSONObject()
        switch self {
        case .vpToken(let token, let state):
            object["vp_token"] = .object(token.json)
            if let state { object["state"] = .string(state) }
        case .error(let error):
            object["error"] = .string(error.error.rawValue)
            if let description = error.errorDescription { object["error_description"] = .string(description) }
            if let state = error.state { object["state"] = .string(state) }
        }
        return object
    }

    /// Form parameters (§8.2): strings as they are, the VP Token as JSON text.
    public var formParameters: [(String, String)] {
        parameters.map { member in
            if case .string(let text) = member.value { return (member.key, text) }
            return (member.key, member.value.serializedString)
        }
    }
}
