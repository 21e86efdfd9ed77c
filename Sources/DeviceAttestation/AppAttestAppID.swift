import Crypto
import Foundation

/// An App ID allowed to use App Attest: the Team ID and the bundle identifier. Its relying-party ID
/// `teamID.bundleID` is what authenticator data hashes (rpIdHash).
public struct AppAttestAppID: Sendable, Hashable {
    public let teamID: String
    public let bundleID: String

    public init(teamID: String, bundleID: String) {
        self.teamID = teamID
        self.bundleID = bundleID
    }

    /// `teamID.bundleID`.
    public var rpID: String { teamID + "." + bundleID }

    /// SHA-256 of the UTF-8 rpID, as authenticator data carries it.
    package var rpIDHash: Data { Data(SHA256.hash(data: Data(rpID.utf8))) }
}

/// The App Attest environment an attestation was made in, from the aaguid of its authenticator data
/// ("Validating apps that connect to your server", attestation step 8).
public enum AppAttestEnvironment: String, Sendable, Hashable {
    case production
    case development

    /// `appattestdevelop` for development, `appattest` followed by seven 0x00 bytes for production.
    init?(aaguid: Data) {
        guard let environment = [Self.production, .development].first(where: { $0.aaguid == aaguid }) else { return nil }
        self = environment
    }

    /// The aaguid App Attest writes for the environment.
    package var aaguid: Data {
        switch self {
        case .development: Data("appattestdevelop".utf8)
        case .production: Data("appattest".utf8) + Data(repeating: 0, count: 7)
        }
    }
}
