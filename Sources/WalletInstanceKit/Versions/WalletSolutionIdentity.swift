/// The `platform` claim of 1.3/1.5 requests (production client: `ios` / `android`), which must match the
/// platform the instance registered with; and how the wallet solution names itself (`wallet_solution_id`, one of
/// the provider's configured solution ids, and `wallet_solution_version`).
public struct WalletSolutionIdentity: Sendable, Equatable {
    /// `ios` or `android`.
    public enum Platform: String, Sendable { case ios, android }

    /// `platform`: the one the instance registered with.
    public var platform: Platform
    /// `wallet_solution_id`.
    public var solutionID: String
    /// `wallet_solution_version`.
    public var solutionVersion: String

    /// The identity a wallet on `platform` sends; `solutionID` must be one the provider configures.
    public init(platform: Platform, solutionID: String = "tessera", solutionVersion: String = "1.0.0") {
        self.platform = platform
        self.solutionID = solutionID
        self.solutionVersion = solutionVersion
    }
}
