import TesseraJOSE

/// The ready-made DCQL queries of `POST /api/transactions {"template": …}` (OpenID4VP §6).
public enum PresentationTemplate: String, Sendable, CaseIterable {
    /// Proof of age from either credential: an mDL's `age_over_18` or a PID's `age_equal_or_over.18`
    /// (one `credential_sets` entry with two options, §6.2).
    case ageOver18 = "age_over_18"
    /// The PID's names and birth date (SD-JWT VC `urn:eudi:pid:1`).
    case pidBasic = "pid_basic"
    /// Names, birth date and age from an mDL (ISO 18013-5 `org.iso.18013.5.1.mDL`).
    case mdl

    public static let pidVCT = "urn:eudi:pid:1"
    public static let mdlDocType = "org.iso.18013.5.1.mDL"
    public static let mdlNamespace = "org.iso.18013.5.1"

    public var dcqlQuery: JSONObject {
        switch self {
        case .ageOver18:
            return [
                "credentials": [
                    Self.mdlQuery(id: "mdl", elements: ["age_over_18"]),
                    Self.pidQuery(id: "pid", paths: [["age_equal_or_over", "18"]]),
                ],
                "credential_sets": [["options": [["mdl"], ["pid"]]]],
            ]
        case .pidBasic:
            return ["credentials": [Self.pidQuery(id: "pid", paths: [["given_name"], ["family_name"], ["birthdate"]])]]
        case .mdl:
            return ["credentials": [Self.mdlQuery(id: "mdl", elements: ["family_name", "given_name", "birth_date", "age_over_18"])]]
        }
    }

    static func pidQuery(id: String, paths: [[String]]) -> JSONValue {
        .object([
            "id": .string(id), "format": "dc+sd-jwt",
            "meta": ["vct_values": .array([.string(pidVCT)])],
            "claims": .array(paths.map { .object(["path": .array($0.map(JSONValue.string))]) }),
        ])
    }

    static func mdlQuery(id: String, elements: [String]) -> JSONValue {
        .object([
            "id": .string(id), "format": "mso_mdoc",
            "meta": ["doctype_value": .string(mdlDocType)],
            "claims": .array(elements.map { .object(["path": [.string(mdlNamespace), .string($0)], "intent_to_retain": false]) }),
        ])
    }
}
