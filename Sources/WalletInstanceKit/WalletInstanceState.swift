/// The Wallet Instance lifecycle (IT-Wallet "Wallet Instance Lifecycle"): Installed after WI INST, Operational
/// once activated (WI ACT), Valid while it holds a valid PID (PID ISS), back to Operational when the PID expires,
/// is revoked or deleted (PID EXP/REV/DEL), back to Installed when the provider revokes it (WI REV), and
/// Uninstalled for good (WI UNINST). (Q)EAA issuance and presentation (ISS/PRE) keep it Valid.
public enum WalletInstanceState: String, Codable, Sendable, CaseIterable {
    case installed, operational, valid, uninstalled
}

public enum WalletInstanceEvent: String, Codable, Sendable, CaseIterable {
    case activated = "WI ACT"
    case pidIssued = "PID ISS"
    case pidExpired = "PID EXP"
    case pidRevoked = "PID REV"
    case pidDeleted = "PID DEL"
    case eaaIssued = "(Q)EAA ISS"
    case eaaPresented = "(Q)EAA PRE"
    case revoked = "WI REV"
    case uninstalled = "WI UNINST"
}

extension WalletInstanceState {
    /// The transition table; nil = not allowed from this state.
    public func after(_ event: WalletInstanceEvent) -> WalletInstanceState? {
        switch (self, event) {
        case (.installed, .activated): return .operational
        case (.operational, .pidIssued): return .valid
        case (.valid, .pidExpired), (.valid, .pidRevoked), (.valid, .pidDeleted): return .operational
        case (.valid, .eaaIssued), (.valid, .eaaPresented): return .valid
        case (.operational, .revoked), (.valid, .revoked): return .installed
        case (.installed, .uninstalled), (.operational, .uninstalled), (.valid, .uninstalled): return .uninstalled
        default: return nil
        }
    }
}
