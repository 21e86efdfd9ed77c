import Crypto
import DeviceAttestation
import Foundation
import HolderKit
import WalletInstanceKit
import X509
import DeviceAttestationTesting

/// The CLI's test Device Integrity Service on Linux: an `AndroidTestAttestationAuthority` kept in
/// `$TESSERA_HOME/device-integrity` (root-certificate.pem is what `tessera provider serve --trust-test-attestation-root`
/// takes) and the app identity it attests.
enum TestIntegrity {
    static let androidApp = AndroidApplication(
        packageName: "org.tessera.wallet",
        signingCertificateDigests: [Data(SHA256.hash(data: Data("Tessera test signing certificate".utf8)))])
    static let appleApp = AppAttestAppID(teamID: "TESSERA000", bundleID: "org.tessera.wallet")

    static func directory() -> URL { TesseraHome.url.appendingPathComponent("device-integrity") }
    static func rootPEMPath() -> URL { directory().appendingPathComponent("root-certificate.pem") }

    /// The authority in `directory`, created (10 years) on first use.
    static func authority(in directory: URL = directory()) throws -> AndroidTestAttestationAuthority {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("root-certificate.pem").path) {
            return try AndroidTestAttestationAuthority(directory: directory)
        }
        let now = Date()
        let authority = try AndroidTestAttestationAuthority.generate(
            commonName: "Tessera Test Attestation Root", notBefore: now.addingTimeInterval(-3600),
            notAfter: now.addingTimeInterval(10 * 365 * 86_400), random: nil)
        try authority.write(toDirectory: directory)
        return authority
    }
}
