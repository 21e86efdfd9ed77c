/// What 1.3+ requests say about the app making them (IT-Wallet 1.3 "split" WIA/WUA request tables, 1.5 §12.1.4–5):
/// `platform`, `wallet_solution_id`, `wallet_solution_version`.
struct WalletSolutionClaims: Sendable {
    /// `ios` or `android`. The production client sends React Native's `Platform.OS` (lower case), the 1.5
    /// example `iOS`: compared without case, as io-wallet does.
    let platform: String
    let solutionID: String
    let solutionVersion: String

    /// Identifiers and versions are short strings; anything longer is refused before it reaches a row.
    static let maxLength = 128

    init(_ reader: ClaimReader) throws(AttestationRequestError) {
        let platform = try reader.string("platform").lowercased()
        guard platform == "ios" || platform == "android" else { throw .malformed("platform must be ios or android") }
        self.platform = platform
        solutionID = try reader.string("wallet_solution_id")
        solutionVersion = try reader.string("wallet_solution_version")
        guard solutionID.utf8.count <= Self.maxLength, solutionVersion.utf8.count <= Self.maxLength else {
            throw .malformed("wallet_solution_id and wallet_solution_version are at most \(Self.maxLength) bytes")
        }
    }

    /// The request names a Wallet Solution this provider attests, on the platform the instance registered with.
    func check(solutionIDs: Set<String>, registeredPlatform: String) throws(AttestationRequestError) {
        guard solutionIDs.contains(solutionID) else {
            throw .instanceMismatch("wallet_solution_id \(solutionID) is not a Wallet Solution of this provider")
        }
        guard platform == registeredPlatform else {
            throw .instanceMismatch("platform \(platform) is not the platform the instance registered with")
        }
    }
}
