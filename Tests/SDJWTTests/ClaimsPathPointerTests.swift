import SDJWT
import TesseraJOSE
import Testing

@Suite("ClaimsPathPointer (OpenID4VP §7)")
struct ClaimsPathPointerTests {
    @Test("CLI form", arguments: [
        ("address.street_address", [ClaimsPathPointer.Component.key("address"), .key("street_address")]),
        ("nationalities.0", [.key("nationalities"), .index(0)]),
        ("nationalities.*", [.key("nationalities"), .allElements]),
        ("a.12.*.b", [.key("a"), .index(12), .allElements, .key("b")]),
        ("given_name", [.key("given_name")]),
    ])
    func cliForm(_ text: String, _ components: [ClaimsPathPointer.Component]) throws {
        let pointer = try ClaimsPathPointer(parsing: text)
        #expect(pointer.components == components)
        #expect(pointer.description == text)
    }

    @Test("JSON form round trip") func jsonForm() throws {
        let json = try JSONValue.parse(#"["address", 0, null, "x"]"#)
        let pointer = try ClaimsPathPointer(json: json)
        #expect(pointer.components == [.key("address"), .index(0), .allElements, .key("x")])
        #expect(pointer.json == json)
    }

    @Test("malformed pointers", arguments: ["", "a..b", ".a", "a.", "a.9999999999"])
    func malformedCLI(_ text: String) {
        #expect(sdjwtError { _ = try ClaimsPathPointer(parsing: text) }.map { if case .invalidClaimsPath = $0 { true } else { false } } == true)
    }

    @Test("malformed JSON pointers", arguments: [#"[]"#, #"[-1]"#, #"[1.5]"#, #"[true]"#, #"[{}]"#, #""a""#])
    func malformedJSON(_ text: String) throws {
        let json = try JSONValue.parse(text)
        #expect(sdjwtError { _ = try ClaimsPathPointer(json: json) }.map { if case .invalidClaimsPath = $0 { true } else { false } } == true)
        #expect(sdjwtError { _ = try ClaimsPathPointer([.index(-1)]) } == .invalidClaimsPath("negative index"))
    }

    @Test("matching concrete paths") func matching() throws {
        let all = try ClaimsPathPointer(parsing: "nationalities.*")
        #expect(all.matches([.key("nationalities"), .index(3)]))
        #expect(!all.matches([.key("nationalities")]))
        #expect(!all.matches([.key("nationalities"), .key("0")]))
        #expect(try ClaimsPathPointer(parsing: "a.1").matches([.key("a"), .index(1)]))
        #expect(!(try ClaimsPathPointer(parsing: "a.1").matches([.key("a"), .index(2)])))
    }

    @Test("digits meet an object: resolved to a member name") func numericKeys() throws {
        let claims = try JSONValue.parse(#"{"age_equal_or_over": {"18": true}, "list": [{"0": 1}], "n": ["a"]}"#)
        #expect(try ClaimsPathPointer(parsing: "age_equal_or_over.18").resolvingNumericKeys(in: claims).components
            == [.key("age_equal_or_over"), .key("18")])
        #expect(try ClaimsPathPointer(parsing: "list.0.0").resolvingNumericKeys(in: claims).components
            == [.key("list"), .index(0), .key("0")])
        #expect(try ClaimsPathPointer(parsing: "list.*.0").resolvingNumericKeys(in: claims).components
            == [.key("list"), .allElements, .key("0")])
        #expect(try ClaimsPathPointer(parsing: "n.0").resolvingNumericKeys(in: claims).components == [.key("n"), .index(0)])
    }
}
