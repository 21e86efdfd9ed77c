import VaultProtocol

/// The rule errors commands answer with (`{code, message}`; codes: module README).
extension VaultEventError {
    static func notFound(_ what: String) -> VaultEventError { VaultEventError(code: "not_found", message: "\(what) does not exist") }
    static func alreadyExists(_ what: String) -> VaultEventError { VaultEventError(code: "already_exists", message: "\(what) already exists") }
    static func versionConflict(current: Int64) -> VaultEventError {
        VaultEventError(code: "version_conflict", message: "the record is at version \(current)")
    }
    static func connectionRevoked(_ id: String) -> VaultEventError {
        VaultEventError(code: "connection_revoked", message: "connection \(id) is revoked")
    }
    static func connectionPending(_ id: String) -> VaultEventError {
        VaultEventError(code: "connection_pending", message: "connection \(id) is not accepted yet")
    }

    /// What the app is told when a peer could not be reached or refused us.
    static func peer(_ failure: PeerSendFailure, _ id: String) -> VaultEventError {
        switch failure {
        case .refused: return VaultEventError(code: "connection_revoked", message: "the peer's bus refused the credentials of connection \(id)")
        case .unreachable: return VaultEventError(code: "peer_unreachable", message: "the peer's vault could not be reached")
        case .unusable: return .connectionPending(id)
        }
    }
}
