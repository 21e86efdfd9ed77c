import Foundation
import SDJWT
import TesseraJOSE
import Testing

@testable import OpenID4VP

/// The seven DCQL examples of OpenID4VP 1.0 (§7.4, Annex D), and one negative per §6 rule.
@Suite struct DCQLParsingTests {
    static let examples = [
        "simple", "simple_mdoc", "multi_credentials", "credentials_alternatives", "complex_mdoc", "claims_alternatives",
        "value_matching_simple",
    ]

    @Test(arguments: examples)
    func parsesAndRoundTrips(_ name: String) throws {
        let json = try Fixtures.object("dcql/\(name).json")
        let query = try DCQLQuery(json: json)
        #expect(query.json == json)
        // Rebuilt from the model, the query serializes to the same JSON.
        let rebuilt = try DCQLQuery(credentials: query.credentials, credentialSets: query.credentialSets)
        #expect(rebuilt.json == json)
        #expect(rebuilt == query)
        // And the serialized text parses back to it (a request parameter is JSON text, §5.1).
        let reparsed = try DCQLQuery(parsing: JSONValue.object(rebuilt.json).serializedString)
        #expect(reparsed == query)
    }

    @Test func simpleExampleModel() throws {
        let query = try DCQLQuery(json: Fixtures.object("dcql/simple.json"))
        #expect(query.credentials.count == 1)
        let credential = try #require(query.credentials.first)
        #expect(credential.id == "my_credential")
        #expect(credential.format == .sdJWTVC)
        #expect(credential.vctValues == ["https://credentials.example.com/identity_credential"])
        #expect(credential.multiple == false)
        #expect(credential.requireCryptographicHolderBinding == true)
        #expect(credential.claims?.map(\.path) == [["family_name"], ["given_name"], ["address", "street_address"]])
        #expect(query.credentialSets == nil)
        #expect(query.effectiveCredentialSets == [CredentialSetQuery(uncheckedOptions: [["my_credential"]], required: true)])
    }

    @Test func complexMdocModel() throws {
        let query = try DCQLQuery(json: Fixtures.object("dcql/complex_mdoc.json"))
        #expect(query.credentials.map(\.id) == ["mdl-id", "mdl-address", "photo_card-id", "photo_card-address"])
        #expect(query.credentials.map(\.doctypeValue) == [
            "org.iso.18013.5.1.mDL", "org.iso.18013.5.1.mDL", "org.iso.23220.photoid.1", "org.iso.23220.photoid.1",
        ])
        #expect(query.credentialSets?.map(\.required) == [true, false])
        #expect(query.credentialSets?.map(\.options) == [[["mdl-id"], ["photo_card-id"]], [["mdl-address"], ["photo_card-address"]]])
        let path = try #require(query.credentials[0].claims?[2].path.mdocElement)
        #expect(path.namespace == "org.iso.18013.5.1" && path.element == "portrait")
    }

    @Test func valueMatchingModel() throws {
        let query = try DCQLQuery(json: Fixtures.object("dcql/value_matching_simple.json"))
        let claims = try #require(query.credentials.first?.claims)
        #expect(claims[0].values == [.string("Doe")])
        #expect(claims[3].values == [.string("90210"), .string("90211")])
        #expect(claims[1].values == nil)
    }

    @Test func unknownPropertiesAreIgnored() throws {
        let query = try DCQLQuery(parsing: """
            {"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"],"x":1},"future":true,
            "claims":[{"path":["n"],"extra":[]}]}],"later":{}}
            """)
        #expect(query.credentials[0].claims?.count == 1)
        #expect(query.credentials[0].meta["x"] == .integer(1))
    }

    // MARK: One negative per rule

    static let negatives: [(String, String)] = [
        (#"{}"#, "credentials is missing"),
        (#"{"credentials":[]}"#, "credentials is not a non-empty array"),
        (#"{"credentials":[1]}"#, "a credential query is not an object"),
        (#"{"credentials":[{"format":"dc+sd-jwt","meta":{"vct_values":["t"]}}]}"#, "credential query id is missing or not a string"),
        (#"{"credentials":[{"id":"a b","format":"dc+sd-jwt","meta":{"vct_values":["t"]}}]}"#, #"credential query id "a b" is not alphanumeric, _ or -"#),
        (#"{"credentials":[{"id":"","format":"dc+sd-jwt","meta":{"vct_values":["t"]}}]}"#, #"credential query id "" is not alphanumeric, _ or -"#),
        (#"{"credentials":[{"id":"a","meta":{}}]}"#, "credential query a: format is missing"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt"}]}"#, "credential query a: meta is missing"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":[]}]}"#, "credential query a: meta is not an object"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{}}]}"#, "credential query a: meta.vct_values is not a non-empty array of strings"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":[]}}]}"#, "credential query a: meta.vct_values is not a non-empty array of strings"),
        (#"{"credentials":[{"id":"a","format":"mso_mdoc","meta":{}}]}"#, "credential query a: meta.doctype_value is not a string"),
        (#"{"credentials":[{"id":"a","format":"mso_mdoc","meta":{"doctype_value":"d"},"claims":[{"path":["ns"]}]}]}"#, "credential query a: an mdoc claims path is not [namespace, element]"),
        (#"{"credentials":[{"id":"a","format":"mso_mdoc","meta":{"doctype_value":"d"},"claims":[{"path":["ns",0]}]}]}"#, "credential query a: an mdoc claims path is not [namespace, element]"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"multiple":"yes"}]}"#, "credential query a: multiple is not a boolean"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"require_cryptographic_holder_binding":1}]}"#, "credential query a: require_cryptographic_holder_binding is not a boolean"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[]}]}"#, "credential query a: claims is not a non-empty array"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"path":[]}]}]}"#, "invalid claims path pointer (empty path)"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"path":["a",-1]}]}]}"#, "invalid claims path pointer (element -1 is not a string, non-negative integer or null)"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"path":"a"}]}]}"#, "claims path pointer is not an array"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"id":"x","path":["a"]},{"id":"x","path":["b"]}]}]}"#, #"credential query a: claim id "x" is not unique"#),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"id":"x.y","path":["a"]}]}]}"#, #"claim id "x.y" is not alphanumeric, _ or -"#),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"path":["a"],"values":[]}]}]}"#, "claim values is not a non-empty array"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"path":["a"],"values":[{"k":1}]}]}]}"#, "claim values holds something other than a string, integer or boolean"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"path":["a"],"values":[1.5]}]}]}"#, "claim values holds something other than a string, integer or boolean"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claim_sets":[["x"]]}]}"#, "credential query a: claim_sets without claims"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"id":"x","path":["a"]}],"claim_sets":[["y"]]}]}"#, #"credential query a: claim set references unknown claim "y""#),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"path":["a"]}],"claim_sets":[["y"]]}]}"#, "credential query a: claim_sets requires an id on every claim"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"id":"x","path":["a"]}],"claim_sets":[[]]}]}"#, "credential query a: a claim set is not a non-empty array"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"trusted_authorities":[]}]}"#, "credential query a: trusted_authorities is not a non-empty array"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"trusted_authorities":[{"type":"aki","values":[]}]}]}"#, "trusted authorities values is not a non-empty array"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"trusted_authorities":[{"values":["x"]}]}]}"#, "trusted authorities type is not a string"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]}},{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]}}]}"#, #"credential query id "a" is not unique"#),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]}}],"credential_sets":[]}"#, "credential_sets is not a non-empty array"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]}}],"credential_sets":[{"options":[]}]}"#, "credential set options is not a non-empty array"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]}}],"credential_sets":[{"options":[[]]}]}"#, "a credential set option is not a non-empty array"),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]}}],"credential_sets":[{"options":[["b"]]}]}"#, #"credential_sets option references unknown id "b""#),
        (#"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]}}],"credential_sets":[{"options":[["a"]],"required":"no"}]}"#, "credential set required is not a boolean"),
    ]

    @Test(arguments: negatives)
    func rejects(_ text: String, _ reason: String) {
        #expect(throws: OpenID4VPError.invalidDCQLQuery(reason)) { try DCQLQuery(parsing: text) }
    }

    @Test func rejectsOversizedQueries() throws {
        let limits = DCQLLimits(maxCredentialQueries: 1)
        let text = #"{"credentials":[{"id":"a","format":"x","meta":{}},{"id":"b","format":"x","meta":{}}]}"#
        #expect(throws: OpenID4VPError.invalidDCQLQuery("more than 1 credential queries")) { try DCQLQuery(parsing: text, limits: limits) }
        let longPath = "[" + Array(repeating: "\"k\"", count: 33).joined(separator: ",") + "]"
        let deep = #"{"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"claims":[{"path":\#(longPath)}]}]}"#
        #expect(throws: OpenID4VPError.invalidDCQLQuery("claims path pointer longer than 32")) { try DCQLQuery(parsing: deep) }
    }
}
