import TesseraJOSE

/// A claims path pointer (OpenID4VP 1.0 §7): a non-empty path into a JSON credential. A string selects an object
/// member, a non-negative integer an array element, and null every element of an array.
///
/// Used by issuance (which claims are selectively disclosable), presentation (which claims to disclose) and DCQL.
public struct ClaimsPathPointer: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        /// A member of an object (a JSON string in the pointer).
        case key(String)
        /// The element at this position of an array (a non-negative JSON integer).
        case index(Int)
        /// Every element of an array (JSON null).
        case allElements
    }

    public let components: [Component]

    /// A pointer from its components; it must not be empty (OpenID4VP §7).
    public init(_ components: [Component]) throws(SDJWTError) {
        guard !components.isEmpty else { throw .invalidClaimsPath("empty path") }
        for component in components {
            if case .index(let index) = component, index < 0 { throw .invalidClaimsPath("negative index") }
        }
        self.components = components
    }

    /// A pointer of object member names only.
    public init(keys: String...) throws(SDJWTError) {
        try self.init(keys.map(Component.key))
    }

    /// From its JSON form: a non-empty array of strings, non-negative integers and nulls (OpenID4VP §7).
    public init(json: JSONValue) throws(SDJWTError) {
        guard let elements = json.arrayValue else { throw .invalidClaimsPath("not an array") }
        var components: [Component] = []
        components.reserveCapacity(elements.count)
        for element in elements {
            switch element {
            case .string(let key): components.append(.key(key))
            case .integer(let index) where index >= 0 && index <= Int64(Int32.max): components.append(.index(Int(index)))
            case .null: components.append(.allElements)
            default: throw .invalidClaimsPath("element \(element) is not a string, non-negative integer or null")
            }
        }
        try self.init(components)
    }

    /// From the command-line form: components separated by `.`; a run of decimal digits is an index, `*` is every
    /// element, anything else a member name (`address.street_address`, `nationalities.0`, `nationalities.*`).
    /// A name containing `.` cannot be written this way; a name of digits only (`age_equal_or_over.18`) parses as an
    /// index: `resolvingNumericKeys(in:)` turns it into a key where the claims have an object there.
    public init(parsing text: some StringProtocol) throws(SDJWTError) {
        guard !text.isEmpty else { throw .invalidClaimsPath("empty path") }
        var components: [Component] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty else { throw .invalidClaimsPath("empty component in \"\(text)\"") }
            if part == "*" {
                components.append(.allElements)
            } else if part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                guard part.utf8.count <= 9, let index = Int(part) else { throw .invalidClaimsPath("index too large") }
                components.append(.index(index))
            } else {
                components.append(.key(String(part)))
            }
        }
        try self.init(components)
    }

    /// This pointer with every `index(n)` that meets an object in `claims` read as the member name `"n"`, for
    /// pointers written in the command-line form (where `18` in `age_equal_or_over.18` cannot say which it is).
    public func resolvingNumericKeys(in claims: JSONValue) -> ClaimsPathPointer {
        var resolved: [Component] = []
        resolved.reserveCapacity(components.count)
        var node: JSONValue? = claims
        for component in components {
            switch component {
            case .index(let index):
                if case .object(let object)? = node {
                    resolved.append(.key(String(index)))
                    node = object[String(index)]
                } else {
                    resolved.append(component)
                    node = node?.arrayValue.flatMap { index < $0.count ? $0[index] : nil }
                }
            case .key(let key):
                resolved.append(component)
                node = node?[key]
            case .allElements:
                resolved.append(component)
                node = node?.arrayValue?.first
            }
        }
        return ClaimsPathPointer(unchecked: resolved)
    }

    /// The JSON form (OpenID4VP §7).
    public var json: JSONValue {
        .array(components.map { component in
            switch component {
            case .key(let key): return .string(key)
            case .index(let index): return .integer(Int64(index))
            case .allElements: return .null
            }
        })
    }

    /// The command-line form (`address.street_address`, `nationalities.*`).
    public var description: String {
        components.map { component in
            switch component {
            case .key(let key): return key
            case .index(let index): return String(index)
            case .allElements: return "*"
            }
        }.joined(separator: ".")
    }

    /// The pointer with one more component.
    func appending(_ component: Component) -> ClaimsPathPointer {
        ClaimsPathPointer(unchecked: components + [component])
    }

    /// Whether this pointer selects the concrete path `path` (made of keys and indexes only): same length, equal
    /// keys, equal indexes, and `allElements` matching any index.
    public func matches(_ path: [Component]) -> Bool {
        guard path.count == components.count else { return false }
        for (mine, theirs) in zip(components, path) where !Self.component(mine, matches: theirs) { return false }
        return true
    }

    /// Whether this pointer selects a prefix of `path` (or `path` itself).
    func isPrefix(of path: [Component]) -> Bool {
        guard components.count <= path.count else { return false }
        for (mine, theirs) in zip(components, path) where !Self.component(mine, matches: theirs) { return false }
        return true
    }

    static func component(_ pattern: Component, matches concrete: Component) -> Bool {
        switch (pattern, concrete) {
        case (.key(let a), .key(let b)): return a == b
        case (.index(let a), .index(let b)): return a == b
        case (.allElements, .index): return true
        default: return false
        }
    }

    /// For components already known to form a valid pointer.
    init(unchecked components: [Component]) { self.components = components }
}
