/// The kinds of nkey, each with the prefix byte that makes its base32 form start with a telling letter.
public enum NKeyType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case account = 0  // 'A'
    case cluster = 16  // 'C' (2 << 3)
    case server = 104  // 'N' (13 << 3)
    case `operator` = 112  // 'O' (14 << 3)
    case user = 160  // 'U' (20 << 3)
    case curve = 184  // 'X' (23 << 3)

    /// The prefix byte of an encoded seed ('S', 18 << 3); the key type follows in its low bits and the next byte.
    static let seedPrefix: UInt8 = 18 << 3

    public var description: String {
        switch self {
        case .account: return "account"
        case .cluster: return "cluster"
        case .server: return "server"
        case .operator: return "operator"
        case .user: return "user"
        case .curve: return "curve"
        }
    }
}
