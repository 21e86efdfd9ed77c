import Foundation
import Testing

@testable import Argon2

/// The shape of the reference implementation's src/test.c known answers (phc-winner-argon2: password
/// "password", salt "somesalt", t = 2, m = 256 KiB, p = 1 and 2, plus "differentpassword" and "diffsalt"),
/// for all three variants and both versions 0x10 and 0x13.
///
/// The expected tags and PHC strings were GENERATED with argon2-cffi 25.1.0 (libargon2 through
/// argon2-cffi-bindings 26.2.0), `argon2.low_level.hash_secret_raw` and `hash_secret`, and not copied from
/// test.c; the Argon2id 0x13 ones equal the rfc9106.json reference-implementation cases.
@Suite("reference implementation known answers (generated with argon2-cffi)")
struct ReferenceKATTests {
    struct KAT: CustomTestStringConvertible, Sendable {
        let variant: Argon2Variant
        let version: UInt32
        let t: UInt32
        let m: UInt32
        let p: UInt32
        let password: String
        let salt: String
        let tagHex: String
        let phc: String

        init(
            _ variant: Argon2Variant, _ version: UInt32, t: UInt32, m: UInt32, p: UInt32, _ password: String,
            _ salt: String, _ tagHex: String, _ phc: String
        ) {
            self.variant = variant
            self.version = version
            self.t = t
            self.m = m
            self.p = p
            self.password = password
            self.salt = salt
            self.tagHex = tagHex
            self.phc = phc
        }

        var parameters: Argon2Parameters {
            Argon2Parameters(variant: variant, version: version, memoryKiB: m, iterations: t, parallelism: p)
        }

        var testDescription: String { "\(variant.identifier) v=\(version) t=\(t) m=\(m) p=\(p) \(password)/\(salt)" }
    }

    static let kats: [KAT] = [
        KAT(
            .argon2i, 0x10, t: 2, m: 256, p: 1, "password", "somesalt",
            "fd4dd83d762c49bdeaf57c47bdcd0c2f1babf863fdeb490df63ede9975fccf06",
            "$argon2i$v=16$m=256,t=2,p=1$c29tZXNhbHQ$/U3YPXYsSb3q9XxHvc0MLxur+GP960kN9j7emXX8zwY"),
        KAT(
            .argon2i, 0x10, t: 2, m: 256, p: 2, "password", "somesalt",
            "b6c11560a6a9d61eac706b79a2f97d68b4463aa3ad87e00c07e2b01e90c564fb",
            "$argon2i$v=16$m=256,t=2,p=2$c29tZXNhbHQ$tsEVYKap1h6scGt5ovl9aLRGOqOth+AMB+KwHpDFZPs"),
        KAT(
            .argon2i, 0x10, t: 2, m: 256, p: 1, "differentpassword", "somesalt",
            "37e532273303d6157c7cf3f1876448bdf9e27a01207befb9abe489dcb3ed7ad2",
            "$argon2i$v=16$m=256,t=2,p=1$c29tZXNhbHQ$N+UyJzMD1hV8fPPxh2RIvfniegEge++5q+SJ3LPtetI"),
        KAT(
            .argon2i, 0x10, t: 2, m: 256, p: 1, "password", "diffsalt",
            "562a412aa48ae2ae778d5db8dd0bf0bd3702dbc302362363d7fc0b5fa119266e",
            "$argon2i$v=16$m=256,t=2,p=1$ZGlmZnNhbHQ$VipBKqSK4q53jV243QvwvTcC28MCNiNj1/wLX6EZJm4"),
        KAT(
            .argon2i, 0x13, t: 2, m: 256, p: 1, "password", "somesalt",
            "89e9029f4637b295beb027056a7336c414fadd43f6b208645281cb214a56452f",
            "$argon2i$v=19$m=256,t=2,p=1$c29tZXNhbHQ$iekCn0Y3spW+sCcFanM2xBT63UP2sghkUoHLIUpWRS8"),
        KAT(
            .argon2i, 0x13, t: 2, m: 256, p: 2, "password", "somesalt",
            "4ff5ce2769a1d7f4c8a491df09d41a9fbe90e5eb02155a13e4c01e20cd4eab61",
            "$argon2i$v=19$m=256,t=2,p=2$c29tZXNhbHQ$T/XOJ2mh1/TIpJHfCdQan76Q5esCFVoT5MAeIM1Oq2E"),
        KAT(
            .argon2i, 0x13, t: 2, m: 256, p: 1, "differentpassword", "somesalt",
            "d8de454a00127853de217639ca7e0e2207add1adac064a271d4c25021515c427",
            "$argon2i$v=19$m=256,t=2,p=1$c29tZXNhbHQ$2N5FSgASeFPeIXY5yn4OIget0a2sBkonHUwlAhUVxCc"),
        KAT(
            .argon2i, 0x13, t: 2, m: 256, p: 1, "password", "diffsalt",
            "23dde0828fc59908d07b5c9f3016810c00bbf19fd9a0bfe9982d3c3cdb5d7513",
            "$argon2i$v=19$m=256,t=2,p=1$ZGlmZnNhbHQ$I93ggo/FmQjQe1yfMBaBDAC78Z/ZoL/pmC08PNtddRM"),
        KAT(
            .argon2d, 0x10, t: 2, m: 256, p: 1, "password", "somesalt",
            "bd404868ff00c52e7543c8332e6a772a5724892d7e328d5cf253bbc8e726b371",
            "$argon2d$v=16$m=256,t=2,p=1$c29tZXNhbHQ$vUBIaP8AxS51Q8gzLmp3KlckiS1+Mo1c8lO7yOcms3E"),
        KAT(
            .argon2d, 0x10, t: 2, m: 256, p: 2, "password", "somesalt",
            "6a91d02b9f8854ba0841f04aa6e53c1d3374c0a0c646b8e431b03de805b91ec3",
            "$argon2d$v=16$m=256,t=2,p=2$c29tZXNhbHQ$apHQK5+IVLoIQfBKpuU8HTN0wKDGRrjkMbA96AW5HsM"),
        KAT(
            .argon2d, 0x10, t: 2, m: 256, p: 1, "differentpassword", "somesalt",
            "cf79cf43c95aae56951cc4d999165853afce622be2549ea1ec45277611d8da18",
            "$argon2d$v=16$m=256,t=2,p=1$c29tZXNhbHQ$z3nPQ8larlaVHMTZmRZYU6/OYiviVJ6h7EUndhHY2hg"),
        KAT(
            .argon2d, 0x10, t: 2, m: 256, p: 1, "password", "diffsalt",
            "2743f3d5c2b22248d84d4ee4c550d3cc34dadfbed2715d2c017e6fedabc697d1",
            "$argon2d$v=16$m=256,t=2,p=1$ZGlmZnNhbHQ$J0Pz1cKyIkjYTU7kxVDTzDTa377ScV0sAX5v7avGl9E"),
        KAT(
            .argon2d, 0x13, t: 2, m: 256, p: 1, "password", "somesalt",
            "25c4ee8ba448054b49efc804e478b9d823be1f9bd2e99f51d6ec4007a3a1501f",
            "$argon2d$v=19$m=256,t=2,p=1$c29tZXNhbHQ$JcTui6RIBUtJ78gE5Hi52CO+H5vS6Z9R1uxAB6OhUB8"),
        KAT(
            .argon2d, 0x13, t: 2, m: 256, p: 2, "password", "somesalt",
            "7b69c92d7c3889aad1281dbc8baefc12cc37c80f1c75e33ef2c2d40c28ebc573",
            "$argon2d$v=19$m=256,t=2,p=2$c29tZXNhbHQ$e2nJLXw4iarRKB28i678Esw3yA8cdeM+8sLUDCjrxXM"),
        KAT(
            .argon2d, 0x13, t: 2, m: 256, p: 1, "differentpassword", "somesalt",
            "4dd19477627d50e29e6e98df9ead17fb5b566f3831790bfeedce617b81ff7783",
            "$argon2d$v=19$m=256,t=2,p=1$c29tZXNhbHQ$TdGUd2J9UOKebpjfnq0X+1tWbzgxeQv+7c5he4H/d4M"),
        KAT(
            .argon2d, 0x13, t: 2, m: 256, p: 1, "password", "diffsalt",
            "33ff2a135a6725aeb7ccb7437e468aa87d34bb5538c4daaf1617e15e351fd099",
            "$argon2d$v=19$m=256,t=2,p=1$ZGlmZnNhbHQ$M/8qE1pnJa63zLdDfkaKqH00u1U4xNqvFhfhXjUf0Jk"),
        KAT(
            .argon2id, 0x10, t: 2, m: 256, p: 1, "password", "somesalt",
            "da070e576e50f2f38a3c897cbddc6c7fb4028e870971ff9eae7b4e1879295e6e",
            "$argon2id$v=16$m=256,t=2,p=1$c29tZXNhbHQ$2gcOV25Q8vOKPIl8vdxsf7QCjocJcf+erntOGHkpXm4"),
        KAT(
            .argon2id, 0x10, t: 2, m: 256, p: 2, "password", "somesalt",
            "f8aabb5315c63cddcdb3b4a021550928e525699da8fcbd1c2b0b1ccd35cc87a7",
            "$argon2id$v=16$m=256,t=2,p=2$c29tZXNhbHQ$+Kq7UxXGPN3Ns7SgIVUJKOUlaZ2o/L0cKwsczTXMh6c"),
        KAT(
            .argon2id, 0x10, t: 2, m: 256, p: 1, "differentpassword", "somesalt",
            "14059e241bc32e9cbe56ccc66fb824d0130a01d9ee5e6a588952003c3dd301cb",
            "$argon2id$v=16$m=256,t=2,p=1$c29tZXNhbHQ$FAWeJBvDLpy+VszGb7gk0BMKAdnuXmpYiVIAPD3TAcs"),
        KAT(
            .argon2id, 0x10, t: 2, m: 256, p: 1, "password", "diffsalt",
            "f61bfa019be2f0cc8868a4fc1a778c3dd7abe1ff3dcad9633e6862cca9360a93",
            "$argon2id$v=16$m=256,t=2,p=1$ZGlmZnNhbHQ$9hv6AZvi8MyIaKT8GneMPder4f89ytljPmhizKk2CpM"),
        KAT(
            .argon2id, 0x13, t: 2, m: 256, p: 1, "password", "somesalt",
            "9dfeb910e80bad0311fee20f9c0e2b12c17987b4cac90c2ef54d5b3021c68bfe",
            "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"),
        KAT(
            .argon2id, 0x13, t: 2, m: 256, p: 2, "password", "somesalt",
            "6d093c501fd5999645e0ea3bf620d7b8be7fd2db59c20d9fff9539da2bf57037",
            "$argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc"),
        KAT(
            .argon2id, 0x13, t: 2, m: 256, p: 1, "differentpassword", "somesalt",
            "809ee7bc1705c508752152854bf322129a0a003e7f0edcfb774e1bf6a11d49e5",
            "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$gJ7nvBcFxQh1IVKFS/MiEpoKAD5/Dtz7d04b9qEdSeU"),
        KAT(
            .argon2id, 0x13, t: 2, m: 256, p: 1, "password", "diffsalt",
            "de75aca7cddda0104a7040c6c6c8fdbf2a88c378b0f1592081f0d3a52e13a5e6",
            "$argon2id$v=19$m=256,t=2,p=1$ZGlmZnNhbHQ$3nWsp83doBBKcEDGxsj9vyqIw3iw8VkggfDTpS4TpeY"),
    ]

    @Test("tag", arguments: kats)
    func tag(_ kat: KAT) throws {
        let tag = try Argon2.hash(
            password: Array(kat.password.utf8), salt: Array(kat.salt.utf8), parameters: kat.parameters)
        #expect(tag.hex == kat.tagHex)
    }

    @Test("encode writes argon2-cffi's PHC string, verify accepts it", arguments: kats)
    func phcString(_ kat: KAT) throws {
        #expect(
            try Argon2.encode(password: kat.password, salt: Array(kat.salt.utf8), parameters: kat.parameters) == kat.phc
        )
        #expect(try Argon2.verify(password: kat.password, encoded: kat.phc))
        #expect(try !Argon2.verify(password: kat.password + "x", encoded: kat.phc))
    }

    /// The reference implementation's test.c writes version 0x10 strings without the `v=` field; such a string
    /// is read as version 0x10, as libargon2's decoder does.
    @Test("a string without v= is version 0x10", arguments: kats.filter { $0.version == 0x10 })
    func withoutVersionField(_ kat: KAT) throws {
        let legacy = kat.phc.replacingOccurrences(of: "$v=16", with: "")
        #expect(legacy != kat.phc)
        let parsed = try Argon2EncodedHash(parsing: legacy)
        #expect(parsed.parameters.version == Argon2Parameters.version10)
        #expect(try Argon2.verify(password: kat.password, encoded: legacy))
    }
}
