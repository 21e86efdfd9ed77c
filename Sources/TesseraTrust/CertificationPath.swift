import X509

/// A certification path as the profiles see it: leaf first, then intermediates, then (when anchored) the trust
/// anchor. Positions in this path are the `certificate:` positions of `TrustError`.
public struct CertificationPath: Sendable, Hashable, RandomAccessCollection {
    /// Leaf first.
    public let certificates: [Certificate]
    /// Whether the last certificate is a trust anchor. When false, rules about the anchor are skipped (the chain
    /// is already rejected as untrusted).
    public let isAnchored: Bool

    public init(_ certificates: [Certificate], isAnchored: Bool) {
        self.certificates = certificates
        self.isAnchored = isAnchored && !certificates.isEmpty
    }

    /// A chain built by swift-certificates' `Verifier`, whose last certificate comes from the root store.
    public init(_ chain: UnverifiedCertificateChain) {
        self.init(Array(chain), isAnchored: true)
    }

    public var startIndex: Int { certificates.startIndex }
    public var endIndex: Int { certificates.endIndex }
    /// Borrowed, not copied: the rules read many fields of each certificate, and a copy retains every one.
    public subscript(position: Int) -> Certificate {
        _read { yield certificates[position] }
    }

    /// The end-entity certificate.
    public var leaf: Certificate? { certificates.first }
    /// The trust anchor, when the path is anchored.
    public var anchor: Certificate? { isAnchored ? certificates.last : nil }
    /// Position of the trust anchor, when the path is anchored.
    public var anchorIndex: Int? { isAnchored ? certificates.count - 1 : nil }

    /// The certificate that issued the one at `position`, if the path holds it.
    public func issuer(of position: Int) -> Certificate? {
        let next = position + 1
        return next < certificates.count ? certificates[next] : nil
    }
}

/// Which certificate of a path a profile rule is about.
enum PathPosition: Sendable, Hashable {
    /// The end-entity certificate (position 0).
    case leaf
    /// The trust anchor (last position), only when the path is anchored.
    case anchor

    func index(in path: CertificationPath) -> Int? {
        switch self {
        case .leaf: return path.isEmpty ? nil : 0
        case .anchor: return path.anchorIndex
        }
    }
}
