import NATSClient
/// Subject patterns (NATS wildcards `*` and `>`) mapped to values, matched against a subject by walking a trie of
/// tokens: the cost of a match depends on the subject's length and the wildcards on its path, not on how many
/// patterns are stored. Same semantics as nats-server's sublist: `*` matches exactly one token, `>` one or more
/// trailing tokens, and a literal token only itself.
///
/// A subject that itself holds wildcard tokens (a SUB being checked against permissions) is matched token by token
/// as nats-server does: its `*` or `>` token is matched by a pattern's `*`/`>`, or by a pattern token that is
/// exactly the same wildcard; so `foo.>` is covered by `foo.>` but not by `foo.bar`.
struct SubjectIndex<Value: Equatable & Sendable>: Sendable {
    struct Node: Sendable {
        /// Children by token; the wildcard tokens `*` and `>` are stored under their own character (a literal token
        /// can never be exactly `*` or `>`: subject validation refuses it).
        var children: [Substring: Node] = [:]
        /// Values of the patterns that end at this node.
        var values: [Value] = []
        var isEmpty: Bool { children.isEmpty && values.isEmpty }
    }

    private var root = Node()
    private(set) var count = 0

    init() {}

    /// An index holding `patterns`, all with the same `value` (a permission list).
    init(patterns: [String], value: Value) {
        for pattern in patterns { insert(pattern, value) }
    }

    var isEmpty: Bool { count == 0 }

    mutating func insert(_ pattern: String, _ value: Value) {
        Self.insert(value, tokens: Self.tokens(pattern)[...], into: &root)
        count += 1
    }

    /// Removes one occurrence of `value` under `pattern`; empty branches are pruned.
    mutating func remove(_ pattern: String, _ value: Value) {
        if Self.remove(value, tokens: Self.tokens(pattern)[...], from: &root) { count -= 1 }
    }

    /// Every value whose pattern matches `subject` (each pattern's values once).
    func matches(_ subject: String) -> [Value] {
        var found: [Value] = []
        Self.collect(Self.tokens(subject)[...], in: root, into: &found)
        return found
    }

    /// Whether any pattern matches `subject` (stops at the first).
    func contains(_ subject: String) -> Bool {
        Self.any(Self.tokens(subject)[...], in: root)
    }

    static func tokens(_ subject: String) -> [Substring] {
        subject.split(separator: ".", omittingEmptySubsequences: false)
    }

    private static func insert(_ value: Value, tokens: ArraySlice<Substring>, into node: inout Node) {
        guard let token = tokens.first else {
            node.values.append(value)
            return
        }
        insert(value, tokens: tokens.dropFirst(), into: &node.children[token, default: Node()])
    }

    private static func remove(_ value: Value, tokens: ArraySlice<Substring>, from node: inout Node) -> Bool {
        guard let token = tokens.first else {
            guard let index = node.values.firstIndex(of: value) else { return false }
            node.values.remove(at: index)
            return true
        }
        guard var child = node.children[token] else { return false }
        let removed = remove(value, tokens: tokens.dropFirst(), from: &child)
        node.children[token] = child.isEmpty ? nil : child
        return removed
    }

    private static func collect(_ tokens: ArraySlice<Substring>, in node: Node, into found: inout [Value]) {
        guard let token = tokens.first else {
            found += node.values
            return
        }
        // `>` takes this token and every one after it.
        if let rest = node.children[">"] { found += rest.values }
        if let any = node.children["*"] { collect(tokens.dropFirst(), in: any, into: &found) }
        // A subject's own `*` or `>` token was matched by the wildcard children above (the same nodes).
        if token != "*", token != ">", let literal = node.children[token] {
            collect(tokens.dropFirst(), in: literal, into: &found)
        }
    }

    private static func any(_ tokens: ArraySlice<Substring>, in node: Node) -> Bool {
        guard let token = tokens.first else { return !node.values.isEmpty }
        if let rest = node.children[">"], !rest.values.isEmpty { return true }
        if let any = node.children["*"], Self.any(tokens.dropFirst(), in: any) { return true }
        if token != "*", token != ">", let literal = node.children[token] { return Self.any(tokens.dropFirst(), in: literal) }
        return false
    }
}
