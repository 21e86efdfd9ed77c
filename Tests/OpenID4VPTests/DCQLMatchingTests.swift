import Foundation
import MDoc
import SDJWT
import TesseraCBOR
import TesseraJOSE
import Testing
import TesseraCore

@testable import OpenID4VP

/// SD-JWT VC stand-ins for matching: the matcher reads `vct`, the processed claims, `cnf` and the AKIs only.
func sdJWTCredential(
    id: String, vct: String, claims: JSONObject, holderBinding: Bool = true, akis: [Data] = []
) -> WalletCredential {
    .sdJWTVC(
        SDJWTVCCredential(
            id: id, vct: vct, claims: claims, hasCryptographicHolderBinding: holderBinding, authorityKeyIdentifiers: akis,
            compactSDJWT: "", holderKey: nil))
}

/// An array literal as a pointer.
func ptr(_ pointer: ClaimsPathPointer) -> ClaimsPathPointer { pointer }

let identityVCT = "https://credentials.example.com/identity_credential"

let personClaims: JSONObject = [
    "given_name": "John", "family_name": "Doe", "birthdate": "1940-01-01", "postal_code": "90210",
    "address": ["street_address": "123 Main St", "locality": "Anytown", "country": "US"],
    "nationalities": ["US", "DE"],
]

@Suite struct DCQLMatchingTests {
    func query(_ name: String) throws -> DCQLQuery { try DCQLQuery(json: Fixtures.object("dcql/\(name).json")) }

    // MARK: The spec examples (dcql/README.md)

    @Test func simpleSelectsOnlyTheRequestedClaims() throws {
        let match = DCQLMatch(query: try query("simple"), credentials: [
            sdJWTCredential(id: "other", vct: "https://example.com/other", claims: personClaims),
            sdJWTCredential(id: "pid", vct: identityVCT, claims: personClaims),
        ])
        #expect(match.isSatisfiable)
        let candidates = try #require(match.candidates["my_credential"])
        #expect(candidates.map(\.credential.id) == ["pid"])
        // Fewer claims than available: exactly the three requested, nothing else of the credential.
        #expect(candidates[0].claims.map(\.path) == [["family_name"], ["given_name"], ["address", "street_address"]])
        #expect(candidates[0].claims.map(\.value) == [.json("Doe"), .json("John"), .json("123 Main St")])
        let selection = try match.preferredSelection()
        #expect(selection.queryIds == ["my_credential"])
    }

    @Test func claimNotInCredentialMeansNoCandidate() throws {
        var claims = personClaims
        claims["address"] = ["locality": "Anytown"]
        let match = DCQLMatch(query: try query("simple"), credentials: [sdJWTCredential(id: "pid", vct: identityVCT, claims: claims)])
        #expect(match.candidates["my_credential"]?.isEmpty == true)
        #expect(!match.isSatisfiable)
        // §6.4.2 / §8.5: the wallet answers access_denied, never a partial vp_token.
        #expect(throws: OpenID4VPError.requiredCredentialsUnavailable) { try match.preferredSelection() }
        #expect(OpenID4VPError.requiredCredentialsUnavailable.errorCode == .accessDenied)
    }

    @Test func simpleMdoc() throws {
        let world = try TestMDocWorld()
        let vehicle = try world.credential(
            id: "mvrc", docType: "org.iso.7367.1.mVRC",
            claims: ["org.iso.7367.1": ["vehicle_holder": "Jane Doe", "plate": "B-TS 1"], "org.iso.18013.5.1": ["given_name": "Jane"]])
        let mdl = try world.credential()
        let match = DCQLMatch(query: try query("simple_mdoc"), credentials: [mdl, vehicle])
        let candidate = try #require(match.candidates["my_credential"]?.first)
        #expect(match.candidates["my_credential"]?.count == 1)
        #expect(candidate.credential.id == "mvrc")
        #expect(candidate.claims.map(\.path) == [["org.iso.7367.1", "vehicle_holder"], ["org.iso.18013.5.1", "given_name"]])
        #expect(candidate.claims.map(\.value) == [.cbor("Jane Doe"), .cbor("Jane")])
    }

    @Test func multiCredentialsNeedsBoth() throws {
        let world = try TestMDocWorld()
        let pid = sdJWTCredential(id: "pid", vct: identityVCT, claims: personClaims)
        let withoutVehicle = DCQLMatch(query: try query("multi_credentials"), credentials: [pid, try world.credential()])
        #expect(!withoutVehicle.isSatisfiable)
        #expect(throws: OpenID4VPError.requiredCredentialsUnavailable) { try withoutVehicle.preferredSelection() }

        let vehicle = try world.credential(
            id: "mvrc", docType: "org.iso.7367.1.mVRC",
            claims: ["org.iso.7367.1": ["vehicle_holder": "Jane Doe"], "org.iso.18013.5.1": ["given_name": "Jane"]])
        let both = DCQLMatch(query: try query("multi_credentials"), credentials: [pid, vehicle])
        let selection = try both.preferredSelection()
        #expect(selection.queryIds == ["pid", "mdl"])
        #expect(selection.credentials.map(\.credential.id) == ["pid", "mvrc"])
    }

    @Test func credentialsAlternativesPreferTheFirstSatisfiableOption() throws {
        let reduced1 = sdJWTCredential(
            id: "r1", vct: "https://credentials.example.com/reduced_identity_credential", claims: ["family_name": "Doe", "given_name": "John"])
        let reduced2 = sdJWTCredential(
            id: "r2", vct: "https://cred.example/residence_credential",
            claims: ["postal_code": "90210", "locality": "Anytown", "region": "CA"])
        let rewards = sdJWTCredential(id: "rw", vct: "https://company.example/company_rewards", claims: ["rewards_number": 42])
        let other = sdJWTCredential(id: "op", vct: "https://othercredentials.example/pid", claims: personClaims)

        let reducedOnly = DCQLMatch(query: try query("credentials_alternatives"), credentials: [reduced1, reduced2, rewards])
        #expect(reducedOnly.credentialSets.map(\.satisfiableOptions) == [[2], [0]])
        #expect(try reducedOnly.preferredSelection().queryIds == ["pid_reduced_cred_1", "pid_reduced_cred_2", "nice_to_have"])

        // Optional credential set: without the rewards credential the request is still satisfiable, and the
        // selection simply leaves nice_to_have out.
        let noRewards = DCQLMatch(query: try query("credentials_alternatives"), credentials: [reduced1, reduced2, other])
        #expect(noRewards.isSatisfiable)
        #expect(noRewards.credentialSets[1].isSatisfiable == false)
        #expect(try noRewards.preferredSelection().queryIds == ["other_pid"])

        // A partial option (only one of the two reduced credentials) does not satisfy the required set.
        let partial = DCQLMatch(query: try query("credentials_alternatives"), credentials: [reduced1, rewards])
        #expect(!partial.isSatisfiable)
    }

    @Test func complexMdocWithPhotoID() throws {
        let world = try TestMDocWorld()
        let photo = try world.credential(
            id: "photo", docType: "org.iso.23220.photoid.1",
            claims: ["org.iso.18013.5.1": [
                "given_name": "Jane", "family_name": "Doe", "portrait": .bytes(Data([1, 2])),
                "resident_address": "Main Street 1", "resident_country": "DE",
            ]])
        let match = DCQLMatch(query: try query("complex_mdoc"), credentials: [photo])
        #expect(match.credentialSets.map(\.satisfiableOptions) == [[1], [1]])
        #expect(try match.preferredSelection().queryIds == ["photo_card-id", "photo_card-address"])
        // With the mDL too, the verifier's first options win.
        let both = DCQLMatch(query: try query("complex_mdoc"), credentials: [photo, try world.credential()])
        #expect(try both.preferredSelection().queryIds == ["mdl-id", "mdl-address"])
    }

    @Test func claimsAlternativesFollowTheJSONOrder() throws {
        let full: JSONObject = [
            "family_name": "Doe", "postal_code": "90210", "locality": "Anytown", "region": "CA", "date_of_birth": "1940-01-01",
        ]
        let q = try query("claims_alternatives")
        let first = try #require(DCQLMatch(query: q, credentials: [sdJWTCredential(id: "p", vct: identityVCT, claims: full)])
            .candidates["pid"]?.first)
        #expect(first.claimSetIndex == 0)
        #expect(first.claims.map(\.claimQueryId) == ["a", "c", "d", "e"])

        var noLocality = full
        noLocality["locality"] = nil
        let second = try #require(DCQLMatch(query: q, credentials: [sdJWTCredential(id: "p", vct: identityVCT, claims: noLocality)])
            .candidates["pid"]?.first)
        #expect(second.claimSetIndex == 1)
        #expect(second.claims.map(\.claimQueryId) == ["a", "b", "e"])

        var noBirth = full
        noBirth["date_of_birth"] = nil
        #expect(DCQLMatch(query: q, credentials: [sdJWTCredential(id: "p", vct: identityVCT, claims: noBirth)]).candidates["pid"]?.isEmpty == true)
    }

    @Test func valueMatching() throws {
        let q = try query("value_matching_simple")
        #expect(DCQLMatch(query: q, credentials: [sdJWTCredential(id: "p", vct: identityVCT, claims: personClaims)]).isSatisfiable)
        var other = personClaims
        other["postal_code"] = "12345"
        #expect(!DCQLMatch(query: q, credentials: [sdJWTCredential(id: "p", vct: identityVCT, claims: other)]).isSatisfiable)
        // Type and value must both match: the integer 90210 is not the string "90210".
        other["postal_code"] = 90210
        #expect(!DCQLMatch(query: q, credentials: [sdJWTCredential(id: "p", vct: identityVCT, claims: other)]).isSatisfiable)
    }

    @Test func mdocValueMatchingConvertsCBORToJSON() throws {
        let world = try TestMDocWorld()
        let mdl = try world.credential()
        func matches(_ element: String, _ values: [ClaimValue]) throws -> Bool {
            let claim = try ClaimsQuery(path: ["org.iso.18013.5.1", .key(element)], values: values)
            let q = try DCQLQuery(credentials: [try .mdoc(id: "m", doctype: MDL.docType, claims: [claim])])
            return DCQLMatch(query: q, credentials: [mdl]).isSatisfiable
        }
        #expect(try matches("age_over_18", [.bool(true)]))
        #expect(try !matches("age_over_18", [.bool(false)]))
        #expect(try matches("family_name", [.string("Doe")]))
        #expect(try matches("birth_date", [.string("1990-05-17")]))
        #expect(try !matches("portrait", [.string("ffd8ffe0")]))
    }

    // MARK: §6.1 rules

    @Test func noClaimsMeansOnlyMandatoryClaims() throws {
        let q = try DCQLQuery(credentials: [try .sdJWTVC(id: "id", vctValues: [identityVCT])])
        let candidate = try #require(DCQLMatch(query: q, credentials: [sdJWTCredential(id: "p", vct: identityVCT, claims: personClaims)])
            .candidates["id"]?.first)
        #expect(candidate.claims.isEmpty)
    }

    @Test func holderBindingRequirement() throws {
        let unbound = sdJWTCredential(id: "ticket", vct: "https://example.com/ticket", claims: ["seat": "12A"], holderBinding: false)
        let required = try DCQLQuery(credentials: [try .sdJWTVC(id: "t", vctValues: ["https://example.com/ticket"])])
        #expect(!DCQLMatch(query: required, credentials: [unbound]).isSatisfiable)
        let optional = try DCQLQuery(credentials: [
            try .sdJWTVC(id: "t", vctValues: ["https://example.com/ticket"], requireCryptographicHolderBinding: false)
        ])
        #expect(DCQLMatch(query: optional, credentials: [unbound]).isSatisfiable)
    }

    @Test func inheritedTypesMatchVctValues() throws {
        let q = try DCQLQuery(credentials: [try .sdJWTVC(id: "id", vctValues: ["https://example.com/base"])])
        let derived = WalletCredential.sdJWTVC(SDJWTVCCredential(
            id: "d", vct: "https://example.com/derived", inheritedTypes: ["https://example.com/base"], claims: [:],
            hasCryptographicHolderBinding: true, compactSDJWT: "", holderKey: nil))
        #expect(DCQLMatch(query: q, credentials: [derived]).isSatisfiable)
    }

    @Test func trustedAuthoritiesByAuthorityKeyIdentifier() throws {
        let aki = Data([0xb3, 0xdb, 0x48, 0xa4, 0xf9, 0xa1, 0xc5, 0xd8, 0xae, 0x36])
        let credential = sdJWTCredential(id: "p", vct: identityVCT, claims: personClaims, akis: [aki])
        func query(_ type: String, _ value: String) throws -> DCQLQuery {
            try DCQLQuery(credentials: [
                try .sdJWTVC(id: "id", vctValues: [identityVCT], trustedAuthorities: [try TrustedAuthoritiesQuery(type: type, values: [value])])
            ])
        }
        #expect(DCQLMatch(query: try query("aki", Base64URL.encode(aki)), credentials: [credential]).isSatisfiable)
        #expect(!DCQLMatch(query: try query("aki", Base64URL.encode(Data([1, 2, 3]))), credentials: [credential]).isSatisfiable)
        // Types the wallet cannot evaluate from the credential never match.
        #expect(!DCQLMatch(query: try query("etsi_tl", "https://lotl.example.com"), credentials: [credential]).isSatisfiable)
        // An mdoc's AKI comes from its IssuerAuth x5chain: the document signer's AKI is the IACA's key id.
        let world = try TestMDocWorld()
        let mdl = try world.credential()
        let dsAKI = try #require(mdl.authorityKeyIdentifiers.first)
        let mdocQuery = try DCQLQuery(credentials: [
            try .mdoc(id: "m", doctype: MDL.docType, trustedAuthorities: [try TrustedAuthoritiesQuery(type: "aki", values: [Base64URL.encode(dsAKI)])])
        ])
        #expect(DCQLMatch(query: mdocQuery, credentials: [mdl]).isSatisfiable)
    }

    @Test func formatMustMatch() throws {
        let world = try TestMDocWorld()
        let q = try DCQLQuery(credentials: [try .sdJWTVC(id: "id", vctValues: [MDL.docType])])
        #expect(!DCQLMatch(query: q, credentials: [try world.credential()]).isSatisfiable)
    }

    // MARK: Selection (consent) rules

    @Test func selectionRules() throws {
        let q = try DCQLQuery(credentials: [
            try .sdJWTVC(id: "one", vctValues: [identityVCT]),
            try .sdJWTVC(id: "many", vctValues: ["https://example.com/ticket"], multiple: true),
            try .sdJWTVC(id: "extra", vctValues: ["https://example.com/extra"]),
        ], credentialSets: [try CredentialSetQuery(options: [["one"]]), try CredentialSetQuery(options: [["many"]], required: false)])
        let match = DCQLMatch(query: q, credentials: [
            sdJWTCredential(id: "p1", vct: identityVCT, claims: personClaims),
            sdJWTCredential(id: "p2", vct: identityVCT, claims: personClaims),
            sdJWTCredential(id: "t1", vct: "https://example.com/ticket", claims: [:]),
            sdJWTCredential(id: "t2", vct: "https://example.com/ticket", claims: [:]),
            sdJWTCredential(id: "x", vct: "https://example.com/extra", claims: [:]),
        ])
        #expect(try match.select(["one": ["p2"], "many": ["t1", "t2"]]).credentials.map(\.credential.id) == ["p2", "t1", "t2"])
        #expect(throws: OpenID4VPError.invalidSelection("2 credentials for one, which does not allow multiple")) {
            try match.select(["one": ["p1", "p2"]])
        }
        #expect(throws: OpenID4VPError.invalidSelection("credential t1 does not satisfy one")) { try match.select(["one": ["t1"]]) }
        #expect(throws: OpenID4VPError.invalidSelection("credential set 0 is required but none of its options is fully chosen")) {
            try match.select(["many": ["t1"]])
        }
        #expect(throws: OpenID4VPError.invalidSelection("extra is not part of a fully chosen credential set option")) {
            try match.select(["one": ["p1"], "extra": ["x"]])
        }
        #expect(throws: OpenID4VPError.invalidSelection("nope is not a credential query of the request")) {
            try match.select(["one": ["p1"], "nope": ["x"]])
        }
        #expect(throws: OpenID4VPError.invalidSelection("a credential is chosen twice for many")) {
            try match.select(["one": ["p1"], "many": ["t1", "t1"]])
        }
    }

    // MARK: Claims path pointers (§7)

    @Test func claimsPathPointerExample() throws {
        // The §7.3 example credential.
        let credential = try #require(JSONValue.parse("""
            {"name":"Arthur Dent","address":{"street_address":"42 Market Street","locality":"Milliways","postal_code":"12345"},
             "degrees":[{"type":"Bachelor of Science","university":"University of Betelgeuse"},
                        {"type":"Master of Science","university":"University of Betelgeuse"}],
             "nationalities":["British","Betelgeusian"]}
            """).objectValue)
        #expect(ptr(["name"]).selections(in: credential)?.map(\.value) == ["Arthur Dent"])
        #expect(ptr(["address"]).selections(in: credential)?.first?.value.objectValue?.count == 3)
        #expect(ptr(["address", "street_address"]).selections(in: credential)?.map(\.value) == ["42 Market Street"])
        let types = try #require(ptr(["degrees", nil, "type"]).selections(in: credential))
        #expect(types.map(\.value) == ["Bachelor of Science", "Master of Science"])
        #expect(types.map(\.path) == [["degrees", 0, "type"], ["degrees", 1, "type"]])
        #expect(ptr(["nationalities", 1]).selections(in: credential)?.map(\.value) == ["Betelgeusian"])
        // Processing errors (§7.1.1): a key on a non-object, an index on a non-object, nothing selected.
        #expect(ptr(["name", "first"]).selections(in: credential) == nil)
        #expect(ptr(["address", 0]).selections(in: credential) == nil)
        #expect(ptr(["nationalities", 5]).selections(in: credential) == nil)
        #expect(ptr(["unknown"]).selections(in: credential) == nil)
    }
}
