import Foundation
import SwiftASN1
import X509

/// The trust anchors of device attestation, embedded as PEM text (no bundle resources).
///
/// - Apple: the Apple App Attestation Root CA certificate (https://www.apple.com/certificateauthority/), the anchor of
///   every App Attest credential certificate ("Validating apps that connect to your server", step 1).
/// - Google: the hardware attestation root public keys (developer.android.com, "Verify hardware-backed key pairs with
///   key attestation", Root certificate). Android chains are anchored on the root's public key, not on one
///   certificate: Google re-issued the RSA root certificate for the same key (2016, 2019, 2022), and added the
///   P-384 "Key Attestation CA1" key in 2025.
public enum AttestationRoots {
    /// Apple App Attestation Root CA (EC P-384, valid 2020-03-18 … 2045-03-15).
    public static var appleAppAttestation: [Certificate] {
        [appleAppAttestationRootPEM].compactMap { try? Certificate(pemEncoded: $0) }
    }

    /// The Google hardware attestation root keys as SubjectPublicKeyInfo DER: the RSA-4096 key of
    /// `SERIALNUMBER=f92009e853b6b045`, and the EC P-384 key of `CN=Key Attestation CA1`.
    public static var googleHardwareAttestationKeys: [Data] { googleKeyBytes.map { Data($0) } }

    /// Decoded once, and kept as byte arrays: LeakSanitizer cannot follow the tagged pointers of `Data` (or of a
    /// `Certificate`'s key) out of a global and reports them as leaks in the fuzz targets, so no global holds either.
    private static let googleKeyBytes: [[UInt8]] = [googleRSA4096KeyPEM, googleP384KeyAttestationCA1KeyPEM].compactMap {
        guard let document = try? PEMDocument(pemString: $0), document.discriminator == "PUBLIC KEY" else { return nil }
        return document.derBytes
    }

    static let appleAppAttestationRootPEM = """
        -----BEGIN CERTIFICATE-----
        MIICITCCAaegAwIBAgIQC/O+DvHN0uD7jG5yH2IXmDAKBggqhkjOPQQDAzBSMSYw
        JAYDVQQDDB1BcHBsZSBBcHAgQXR0ZXN0YXRpb24gUm9vdCBDQTETMBEGA1UECgwK
        QXBwbGUgSW5jLjETMBEGA1UECAwKQ2FsaWZvcm5pYTAeFw0yMDAzMTgxODMyNTNa
        Fw00NTAzMTUwMDAwMDBaMFIxJjAkBgNVBAMMHUFwcGxlIEFwcCBBdHRlc3RhdGlv
        biBSb290IENBMRMwEQYDVQQKDApBcHBsZSBJbmMuMRMwEQYDVQQIDApDYWxpZm9y
        bmlhMHYwEAYHKoZIzj0CAQYFK4EEACIDYgAERTHhmLW07ATaFQIEVwTtT4dyctdh
        NbJhFs/Ii2FdCgAHGbpphY3+d8qjuDngIN3WVhQUBHAoMeQ/cLiP1sOUtgjqK9au
        Yen1mMEvRq9Sk3Jm5X8U62H+xTD3FE9TgS41o0IwQDAPBgNVHRMBAf8EBTADAQH/
        MB0GA1UdDgQWBBSskRBTM72+aEH/pwyp5frq5eWKoTAOBgNVHQ8BAf8EBAMCAQYw
        CgYIKoZIzj0EAwMDaAAwZQIwQgFGnByvsiVbpTKwSga0kP0e8EeDS4+sQmTvb7vn
        53O5+FRXgeLhpJ06ysC5PrOyAjEAp5U4xDgEgllF7En3VcE3iexZZtKeYnpqtijV
        oyFraWVIyd/dganmrduC1bmTBGwD
        -----END CERTIFICATE-----
        """

    static let googleRSA4096KeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MIICIjANBgkqhkiG9w0BAQEFAAOCAg8AMIICCgKCAgEAr7bHgiuxpwHsK7Qui8xU
        FmOr75gvMsd/dTEDDJdSSxtf6An7xyqpRR90PL2abxM1dEqlXnf2tqw1Ne4Xwl5j
        lRfdnJLmN0pTy/4lj4/7tv0Sk3iiKkypnEUtR6WfMgH0QZfKHM1+di+y9TFRtv6y
        //0rb+T+W8a9nsNL/ggjnar86461qO0rOs2cXjp3kOG1FEJ5MVmFmBGtnrKpa73X
        pXyTqRxB/M0n1n/W9nGqC4FSYa04T6N5RIZGBN2z2MT5IKGbFlbC8UrW0DxW7AYI
        mQQcHtGl/m00QLVWutHQoVJYnFPlXTcHYvASLu+RhhsbDmxMgJJ0mcDpvsC4PjvB
        +TxywElgS70vE0XmLD+OJtvsBslHZvPBKCOdT0MS+tgSOIfga+z1Z1g7+DVagf7q
        uvmag8jfPioyKvxnK/EgsTUVi2ghzq8wm27ud/mIM7AY2qEORR8Go3TVB4HzWQgp
        Zrt3i5MIlCaY504LzSRiigHCzAPlHws+W0rB5N+er5/2pJKnfBSDiCiFAVtCLOZ7
        gLiMm0jhO2B6tUXHI/+MRPjy02i59lINMRRev56GKtcd9qO/0kUJWdZTdA2XoS82
        ixPvZtXQpUpuL12ab+9EaDK8Z4RHJYYfCT3Q5vNAXaiWQ+8PTWm2QgBR/bkwSWc+
        NpUFgNPN9PvQi8WEg5UmAGMCAwEAAQ==
        -----END PUBLIC KEY-----
        """

    static let googleP384KeyAttestationCA1KeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAEI9ojcU7fPlsFCjxy6IRqzgeOoK0b+YsV
        9FPQywiyw8EQRTkJ9u3qwfnI4DGoSLlBqClTXJfgfCcZvs60FikNMHnu4fkRzObf
        gDkU2KNXezT9/RQ+XvNslxPHrHCowhGr
        -----END PUBLIC KEY-----
        """
}
