import Crypto
import DeviceAttestation
import Foundation
import SwiftASN1
import Testing
import X509

/// The embedded roots are the ones roots.json lists.
@Suite struct AttestationRootsTests {
    @Test func theAppleRootIsTheAppAttestationRootCA() throws {
        let roots = AttestationRoots.appleAppAttestation
        #expect(roots.count == 1)
        let root = try #require(roots.first)
        var serializer = DER.Serializer()
        try serializer.serialize(root)
        let expected = try Fixtures.roots().member("apple_app_attestation_root_ca")
        #expect(Data(SHA256.hash(data: serializer.serializedBytes)) == (try Data(hex: try expected.string("sha256_fingerprint_hex"))))
        #expect(root.subject == root.issuer)
    }

    @Test func theGoogleKeysAreTheHardwareAttestationRootKeys() throws {
        let keys = AttestationRoots.googleHardwareAttestationKeys
        let expected = try Fixtures.roots().array("google_hardware_attestation_roots")
            .map { try base64(try $0.string("public_key_spki_sha256_b64")) }
        #expect(keys.count == 2)
        #expect(keys.map { Data(SHA256.hash(data: $0)) } == expected)
    }

    /// Every root certificate roots.json lists for a Google key carries that key, so anchoring on the key accepts
    /// all of them.
    @Test func everyGoogleRootCertificateCarriesAnEmbeddedKey() throws {
        var count = 0
        for root in try Fixtures.roots().array("google_hardware_attestation_roots") {
            for certificate in try root.array("certificates") {
                let parsed = try Certificate(pemEncoded: try certificate.string("pem"))
                var serializer = DER.Serializer()
                try serializer.serialize(parsed.publicKey)
                #expect(AttestationRoots.googleHardwareAttestationKeys.contains(Data(serializer.serializedBytes)))
                count += 1
            }
        }
        #expect(count == 4)
    }
}
