import Foundation

/// A JSON object: members in the order they were parsed or added, names unique. Equality and hashing ignore the
/// order (two objects are equal when they have the same names with equal values).
public struct JSONObject: Sendable, Hashable, Sequence {
    public typealias Member = (key: String, value: JSONValue)
    public typealias Element = Member

    private var storage: [Member]
    /// Name → position, kept only for larger objects (small ones are searched linearly, which is faster).
    private var index: [String: Int]?

    /// Objects with more members than this keep `index`.
    static let indexThreshold = 12

    public init() {
        storage = []
        index = nil
    }

    /// An object with these members, in this order. A repeated name throws `duplicateMemberName`.
    public init(_ members: [(String, JSONValue)]) throws(JSONError) {
        self.init()
        storage.reserveCapacity(members.count)
        for (key, value) in members {
            guard position(of: key) == nil else { throw .duplicateMemberName(key, offset: nil) }
            append(key, value)
        }
    }

    /// Used by the parser, which has already checked that every name is new; `index`, when given, is the
    /// name → position map it built for that check.
    init(uncheckedMembers members: [Member], index: [String: Int]? = nil) {
        storage = members
        self.index = nil
        if members.count > Self.indexThreshold {
            if let index, index.count == members.count { self.index = index } else { rebuildIndex() }
        }
    }

    /// Reserves room for `capacity` members, for callers that know how many they will add.
    public mutating func reserveCapacity(_ capacity: Int) {
        storage.reserveCapacity(capacity)
        guard capacity > Self.indexThreshold else { return }
        if index == nil {
            var built = [String: Int](minimumCapacity: capacity)
            for (position, member) in storage.enumerated() { built[member.key] = position }
            index = built
        } else {
            index?.reserveCapacity(capacity)
        }
    }

    /// The value of the member `key`. Setting appends a new member or replaces the value in place (the position
    /// is kept); setting nil removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return storage[position].value
        }
        set {
            let existing = position(of: key)
            switch (existing, newValue) {
            case (let position?, let value?):
                storage[position].value = value
            case (nil, let value?):
                append(key, value)
            case (let position?, nil):
                storage.remove(at: position)
                if index != nil { rebuildIndex() }
            case (nil, nil):
                break
            }
        }
    }

    /// Appends a member named `key` with the value `makeValue` returns, unless the object has one of that name
    /// already (then `makeValue` is not called). Returns whether it appended. One name lookup, where a
    /// `contains` followed by a subscript set takes two (in an indexed object: two hashes of the name).
    public mutating func appendIfAbsent(_ key: String, _ makeValue: () -> JSONValue) -> Bool {
        if index != nil {
            // The name is claimed with its future position; a name already present keeps its own.
            if let existing = index?.updateValue(storage.count, forKey: key) {
                index?[key] = existing
                return false
            }
            storage.append((key, makeValue()))
            return true
        }
        guard position(of: key) == nil else { return false }
        append(key, makeValue())
        return true
    }

    /// Member names in order.
    public var keys: [String] { storage.map(\.key) }
    /// Members in order.
    public var members: [Member] { storage }
    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }

    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    public func makeIterator() -> IndexingIterator<[Member]> { storage.makeIterator() }

    /// Compact serialization, member order kept (see `JSONValue.serialized()`).
    public func serialized() -> Data {
        JSONValue.object(self).serialized()
    }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        for position in storage.indices where storage[position].key == key { return position }
        return nil
    }

    private mutating func append(_ key: String, _ value: JSONValue) {
        storage.append((key, value))
        if index != nil {
            index?[key] = storage.count - 1
        } else if storage.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    private mutating func rebuildIndex() {
        var built: [String: Int] = [:]
        built.reserveCapacity(storage.count)
        for (position, member) in storage.enumerated() { built[member.key] = position }
        index = built
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for member in lhs.storage {
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }

    /// Order-independent: the members' hashes are combined commutatively.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in storage {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(storage.count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// A later duplicate name in the literal replaces the earlier value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }
}

extension JSONObject: CustomStringConvertible {
    public var description: String { JSONValue.object(self).serializedString }
}
