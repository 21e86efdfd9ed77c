import SwiftASN1

/// Walks the children of a constructed DER node with named errors, so a parser reads like its ASN.1 schema.
struct DERNodes {
    private var iterator: ASN1NodeCollection.Iterator

    private init(_ collection: ASN1NodeCollection) { iterator = collection.makeIterator() }

    /// The children of a SEQUENCE node.
    static func sequence(_ node: ASN1Node, _ name: String) throws(AttestationParseError) -> DERNodes {
        guard node.identifier == .sequence else { throw AttestationParseError("\(name) is not a SEQUENCE") }
        return try constructed(node, name)
    }

    /// The children of a SET node.
    static func set(_ node: ASN1Node, _ name: String) throws(AttestationParseError) -> DERNodes {
        guard node.identifier == .set else { throw AttestationParseError("\(name) is not a SET") }
        return try constructed(node, name)
    }

    /// The children of any constructed node (e.g. an EXPLICIT tag).
    static func constructed(_ node: ASN1Node, _ name: String) throws(AttestationParseError) -> DERNodes {
        guard case .constructed(let children) = node.content else {
            throw AttestationParseError("\(name) is not constructed")
        }
        return DERNodes(children)
    }

    mutating func next() -> ASN1Node? { iterator.next() }

    mutating func required(_ name: String) throws(AttestationParseError) -> ASN1Node {
        guard let node = iterator.next() else { throw AttestationParseError("\(name) is missing") }
        return node
    }

    /// Fails when fields are left over after the last one the schema defines.
    mutating func end(_ name: String) throws(AttestationParseError) {
        if iterator.next() != nil { throw AttestationParseError("\(name) has unexpected trailing fields") }
    }
}
