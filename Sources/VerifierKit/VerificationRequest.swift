import Foundation
import MDoc

/// What the reader asks for. Templates cover the common checks; `custom` takes any element list.
/// `intentToRetain` is false throughout: the reader only looks.
public struct VerificationRequest: Sendable, Equatable {
    /// The docType requested, e.g. `org.iso.18013.5.1.mDL`.
    public var docType: String
    /// namespace → element identifiers.
    public var elements: [String: [String]]

    /// A request for `elements` of a document of type `docType`.
    public init(docType: String, elements: [String: [String]]) {
        self.docType = docType
        self.elements = elements
    }

    /// Age over 18, with the portrait to match the person (ISO 18013-5 §7.2.5 age attestation).
    public static let ageOver18 = VerificationRequest(
        docType: MDL.docType, elements: [MDL.namespace: ["age_over_18", "portrait"]])

    /// Age over 21, with the portrait.
    public static let ageOver21 = VerificationRequest(
        docType: MDL.docType, elements: [MDL.namespace: ["age_over_21", "portrait"]])

    /// Every mandatory mDL element of Table 5 plus the age statements.
    public static let fullMDL = VerificationRequest(
        docType: MDL.docType,
        elements: [
            MDL.namespace: [
                "family_name", "given_name", "birth_date", "issue_date", "expiry_date", "issuing_country",
                "issuing_authority", "document_number", "portrait", "driving_privileges", "un_distinguishing_sign",
                "age_over_18", "age_over_21",
            ]
        ])

    /// mDL elements by identifier, in the mDL namespace.
    public static func custom(_ elements: [String], docType: String = MDL.docType, namespace: String = MDL.namespace)
        -> VerificationRequest
    {
        VerificationRequest(docType: docType, elements: [namespace: elements])
    }

    /// A template by name (`age_over_18`, `age_over_21`, `mdl`), or a comma-separated element list.
    public static func named(_ name: String) -> VerificationRequest? {
        switch name {
        case "age_over_18": return .ageOver18
        case "age_over_21": return .ageOver21
        case "mdl", "full_mdl": return .fullMDL
        default:
            let items = name.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !items.isEmpty, items.allSatisfy({ $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else {
                return nil
            }
            return .custom(items)
        }
    }

    /// The ItemsRequest of this request (§8.3.2.1.2.1).
    public var itemsRequest: ItemsRequest {
        ItemsRequest(
            docType: docType,
            nameSpaces: elements.mapValues { Dictionary($0.map { ($0, false) }, uniquingKeysWith: { a, _ in a }) })
    }
}
