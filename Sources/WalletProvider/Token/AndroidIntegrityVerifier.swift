import Crypto
import Foundation
import TesseraJOSE
import X509

/// Checks an Android `integrity_assertion` (a Play Integrity token whose `requestHash` is the hex SHA-256 of
/// `client_data`). Google decodes production tokens on its servers (or the deployment decrypts them with the keys
/// it manages in the Play Console): a deployment plugs that in here. `LocalIntegrityTokenVerifier` checks tokens
/// of the same shape signed under a local test root, for tests and the Linux test integrity service.
public protocol AndroidIntegrityVerifier: Sendable {
    /// Throws an `IntegrityVerdictError` when the token is not genuine, not for this request, or the device or app
    /// fails the verdicts.
    func verify(integrityToken: String, clientDataHash: Data, packageNames: [String], at instant: Date) async throws(IntegrityVerdictError)
}

public struct IntegrityVerdictError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    /// The token is genuine and for this request, but the device's verdicts fall below what the provider requires
    /// (IT-Wallet `integrity_check_error`); false when the token itself is refused (`invalid_request`).
    public let isDeviceVerdict: Bool

    public init(_ description: String, deviceVerdict: Bool = false) {
        self.description = description
        isDeviceVerdict = deviceVerdict
    }
}

/// Verifies integrity tokens shaped like Play Integrity's decoded payload (`requestDetails`, `appIntegrity`,
/// `deviceIntegrity`), sent as an ES256 JWS whose `x5c` chains to `root` (the test attestation root).
public struct LocalIntegrityTokenVerifier: AndroidIntegrityVerifier {
    public let root: Certificate
    /// How old `requestDetails.timestampMillis` may be.
    public let maxAge: TimeInterval

    public init(root: Certificate, maxAge: TimeInterval = 15 * 60) {
        self.root = root
        self.maxAge = maxAge
    }

    public func verify(integrityToken: String, clientDataHash: Data, packageNames: [String], at instant: Date) async throws(IntegrityVerdictError) {
        guard let jws = try? CompactJWS(parsing: integrityToken) else { throw IntegrityVerdictError("the integrity token is not a JWS") }
        try verifyChain(jws, at: instant)
        guard let payload = try? jws.payloadJSON() else { throw IntegrityVerdictError("the integrity token has no JSON payload") }
        let details = payload["requestDetails"]
        let hash = clientDataHash.map { String(format: "%02x", $0) }.joined()
        guard let package = details?["requestPackageName"]?.stringValue, packageNames.contains(package) else {
            throw IntegrityVerdictError("requestPackageName is not one of the configured apps")
        }
        guard details?["requestHash"]?.stringValue == hash else { throw IntegrityVerdictError("requestHash does not match client_data") }
        guard let millis = details?["timestampMillis"]?.stringValue.flatMap(Int64.init),
            abs(instant.timeIntervalSince1970 - Double(millis) / 1000) <= maxAge
        else { throw IntegrityVerdictError("the integrity token is too old") }
        guard payload["appIntegrity"]?["appRecognitionVerdict"]?.stringValue == "PLAY_RECOGNIZED",
            payload["appIntegrity"]?["packageName"]?.stringValue == package
        else { throw IntegrityVerdictError("the app is not recognized") }
        let verdicts = payload["deviceIntegrity"]?["deviceRecognitionVerdict"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard verdicts.contains("MEETS_DEVICE_INTEGRITY") else {
            throw IntegrityVerdictError("the device does not meet device integrity", deviceVerdict: true)
        }
    }

    /// `x5c` (leaf first) chains by signature and name to `root`, every certificate valid at `instant`, and the
    /// leaf's key signed the token.
    private func verifyChain(_ jws: CompactJWS, at instant: Date) throws(IntegrityVerdictError) {
        let untrusted = IntegrityVerdictError("the integrity token is not signed under the trusted root")
        guard let ders = try? jws.x5cCertificates(), !ders.isEmpty, ders.count <= 4 else { throw untrusted }
        var chain: [Certificate] = []
        for der in ders {
            guard let certificate = try? Certificate(derEncoded: Array(der)) else { throw untrusted }
            chain.append(certificate)
        }
        chain.append(root)
        for (child, parent) in zip(chain, chain.dropFirst()) {
            guard child.issuer == parent.subject, parent.publicKey.isValidSignature(child.signature, for: child),
                child.notValidBefore <= instant, instant <= child.notValidAfter
            else { throw untrusted }
        }
        guard let leaf = chain.first, let key = try? JWSVerificationKey(certificate: leaf), (try? jws.verify(with: key)) != nil else {
            throw untrusted
        }
    }
}
