import Foundation
import TesseraJOSE

/// The VP Token (§8.1): a JSON object whose keys are credential query ids and whose values are non-empty arrays
/// of presentations (strings for SD-JWT VC and mdoc; objects for some W3C formats).
public struct VPToken: Sendable, Hashable {
    /// Query id → presentations, in the order added.
    public let entries: [(queryId: String, presentations: [JSONValue])]

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

    public subscript(queryId: String) -> [JSONValue]? {
        entries.first { $0.queryId == queryId }?.presentations
    }

    public var json: JSONObject {
        var object = JSONObject()
        for entry in entries { object[entry.queryId] = .array(entry.presentations) }
        return object
    }

    public static func == (lhs: VPToken, rhs: VPToken) -> Bool { lhs.json == rhs.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }
}

/// An Authorization Error Response (RFC 6749 §4.1.2.1, OpenID4VP §8.5).
public struct AuthorizationErrorResponse: Sendable, Hashable {
    public var error: AuthorizationErrorCode
    public var errorDescription: String?
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
    case vpToken(VPToken, state: String?)
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
