/// The Wallet Instance lifecycle (IT-Wallet "Wallet Instance Lifecycle"): Installed after WI INST, Operational
/// once activated (WI ACT), Valid while it holds a valid PID (PID ISS), back to Operational when the PID expires,
/// is revoked or deleted (PID EXP/REV/DEL), back to Installed when the provider revokes it (WI REV), and
/// Uninstalled for good (WI UNINST). (Q)EAA issuance and presentation (ISS/PRE) keep it Valid.
public enum WalletInstanceState: String, Codable, Sendable, CaseIterable {
    /// The four states of the lifecycle; `uninstalled` is final.
    case installed, operational, valid, uninstalled
}

/// An event of the IT-Wallet Wallet Instance lifecycle, spelled as the lifecycle names it.
public enum WalletInstanceEvent: String, Codable, Sendable, CaseIterable {
    /// The instance was activated at its provider (registration and the first Wallet Attestation).
    case activated = "WI ACT"
    /// A valid PID entered the wallet.
    case pidIssued = "PID ISS"
    /// The wallet's PID expired.
    case pidExpired = "PID EXP"
    /// The PID was revoked (for instance, a newer instance of the account took it over).
    case pidRevoked = "PID REV"
    /// The PID was deleted from the wallet.
    case pidDeleted = "PID DEL"
    /// A (Q)EAA was issued to the wallet.
    case eaaIssued = "(Q)EAA ISS"
    /// A (Q)EAA was presented.
    case eaaPresented = "(Q)EAA PRE"
    /// The provider revoked the instance.
    case revoked = "WI REV"
    /// The app was uninstalled.
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
