/// The elements of a JSON array read without building an array: the first `capacity` are kept, any others only
/// counted. For arrays whose shape is fixed and short, such as a Disclosure's `[salt, claim name, claim value]`
/// (RFC 9901 §4.2), which a verifier reads once and drops.
public struct JSONShortArray: Sendable {
    public static let capacity = 3
    /// How many elements the array has, including those not kept.
    public private(set) var count = 0
    private var elements: (JSONValue, JSONValue, JSONValue) = (.null, .null, .null)

    init() {}

    mutating func append(_ element: JSONValue) {
        switch count {
        case 0: elements.0 = element
        case 1: elements.1 = element
        case 2: elements.2 = element
        default: break
        }
        count += 1
    }

    /// The element at `index`; nil past the end or past `capacity`.
    public subscript(index: Int) -> JSONValue? {
        guard index >= 0, index < min(count, Self.capacity) else { return nil }
        switch index {
        case 0: return elements.0
        case 1: return elements.1
        default: return elements.2
        }
    }
}
