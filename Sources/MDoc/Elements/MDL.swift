import Foundation
import TesseraCBOR

/// The mDL document type and namespace (ISO/IEC 18013-5:2021 §7.1, §7.2.1).
public enum MDL {
    public static let docType = "org.iso.18013.5.1.mDL"
    public static let namespace = "org.iso.18013.5.1"

    /// Data element identifiers of `org.iso.18013.5.1` (§7.2.1, Table 5).
    public enum Element: String, CaseIterable, Sendable {
        case familyName = "family_name"
        case givenName = "given_name"
        case birthDate = "birth_date"
        case issueDate = "issue_date"
        case expiryDate = "expiry_date"
        case issuingCountry = "issuing_country"
        case issuingAuthority = "issuing_authority"
        case documentNumber = "document_number"
        case portrait
        case drivingPrivileges = "driving_privileges"
        case unDistinguishingSign = "un_distinguishing_sign"
        case administrativeNumber = "administrative_number"
        case sex
        case height
        case weight
        case eyeColour = "eye_colour"
        case hairColour = "hair_colour"
        case birthPlace = "birth_place"
        case residentAddress = "resident_address"
        case portraitCaptureDate = "portrait_capture_date"
        case ageInYears = "age_in_years"
        case ageBirthYear = "age_birth_year"
        case issuingJurisdiction = "issuing_jurisdiction"
        case nationality
        case residentCity = "resident_city"
        case residentState = "resident_state"
        case residentPostalCode = "resident_postal_code"
        case residentCountry = "resident_country"
        case familyNameNationalCharacter = "family_name_national_character"
        case givenNameNationalCharacter = "given_name_national_character"
        case signatureUsualMark = "signature_usual_mark"

        /// The CDDL type of the element, checked when a value is read or issued.
        public var type: ElementType {
            switch self {
            case .birthDate: return .fullDate
            case .issueDate, .expiryDate: return .fullDateOrTDate
            case .portraitCaptureDate: return .tdate
            case .portrait, .signatureUsualMark: return .bytes
            case .drivingPrivileges: return .drivingPrivileges
            case .sex, .height, .weight, .ageInYears, .ageBirthYear: return .uint
            case .issuingCountry, .nationality, .residentCountry: return .countryCode
            default: return .text
            }
        }
    }

    /// CDDL types of mDL elements.
    public enum ElementType: String, Sendable {
        case text = "tstr"
        case fullDate = "full-date"
        case fullDateOrTDate = "full-date / tdate"
        case tdate
        case bytes = "bstr"
        case uint
        case bool
        case countryCode = "tstr (ISO 3166-1 alpha-2)"
        case drivingPrivileges = "DrivingPrivileges"

        /// True if `value` is of this type.
        public func accepts(_ value: CBOR) -> Bool {
            switch self {
            case .text: return value.textValue != nil
            case .fullDate: return (try? FullDate(value)) != nil
            case .fullDateOrTDate: return (try? FullDate(value)) != nil || (try? TDate(value)) != nil
            case .tdate: return (try? TDate(value)) != nil
            case .bytes: return value.bytesValue != nil
            case .uint: return value.uint64Value != nil
            case .bool: return value.boolValue != nil
            case .countryCode:
                guard let s = value.textValue else { return false }
                return s.utf8.count == 2 && s.utf8.allSatisfy { (0x41...0x5a).contains($0) }
            case .drivingPrivileges: return (try? DrivingPrivilege.list(value)) != nil
            }
        }
    }

    /// The CDDL type an element identifier must have: `age_over_NN` is bool; unknown identifiers have none.
    public static func type(of identifier: String) -> ElementType? {
        if let e = Element(rawValue: identifier) { return e.type }
        if identifier.hasPrefix("age_over_"), identifier.count == 11, Int(identifier.suffix(2)) != nil { return .bool }
        return nil
    }

    /// Checks each element of the mDL namespace against its CDDL type; other namespaces are generic.
    public static func validate(namespace: String, element: String, value: CBOR) throws(MDocError) {
        guard namespace == Self.namespace, let type = type(of: element) else { return }
        guard type.accepts(value) else {
            throw .invalidElementValue(namespace: namespace, element: element, expected: type.rawValue)
        }
    }
}

/// `DrivingPrivilege = {"vehicle_category_code": tstr, ? "issue_date": full-date, ? "expiry_date": full-date,
/// ? "codes": [+ Code]}`, `Code = {"code": tstr, ? "sign": tstr, ? "value": tstr}` (§7.2.4).
public struct DrivingPrivilege: Codable, Sendable, Equatable {
    public struct Code: Codable, Sendable, Equatable {
        public var code: String
        public var sign: String?
        public var value: String?

        public init(code: String, sign: String? = nil, value: String? = nil) {
            self.code = code
            self.sign = sign
            self.value = value
        }
    }

    public var vehicleCategoryCode: String
    public var issueDate: FullDate?
    public var expiryDate: FullDate?
    public var codes: [Code]?

    enum CodingKeys: String, CodingKey {
        case vehicleCategoryCode = "vehicle_category_code"
        case issueDate = "issue_date"
        case expiryDate = "expiry_date"
        case codes
    }

    public init(vehicleCategoryCode: String, issueDate: FullDate? = nil, expiryDate: FullDate? = nil, codes: [Code]? = nil) {
        self.vehicleCategoryCode = vehicleCategoryCode
        self.issueDate = issueDate
        self.expiryDate = expiryDate
        self.codes = codes
    }

    /// Reads the `driving_privileges` element value.
    public static func list(_ value: CBOR) throws(MDocError) -> [DrivingPrivilege] {
        try readStructure("DrivingPrivileges", from: value) { (item) throws(ReadFailure) in
            try Read.array(item, DrivingPrivilege.init(reading:))
        }
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        vehicleCategoryCode = try fields.field("vehicle_category_code", Read.text)
        issueDate = try fields.optionalField("issue_date", Self.fullDate)
        expiryDate = try fields.optionalField("expiry_date", Self.fullDate)
        codes = try fields.optionalField("codes") { (i) throws(ReadFailure) in
            try Read.array(i) { (code) throws(ReadFailure) in
                let c = try MapReader(code)
                return Code(
                    code: try c.field("code", Read.text), sign: try c.optionalField("sign", Read.text),
                    value: try c.optionalField("value", Read.text))
            }
        }
    }

    static func fullDate(_ item: CBOR) throws(ReadFailure) -> FullDate {
        do {
            return try FullDate(item)
        } catch {
            throw ReadFailure(.cbor(error))
        }
    }
}

/// The mDL elements of one document, typed (§7.2.1). Elements not present are nil; others stay
/// in `other`.
public struct MDLData: Sendable, Equatable {
    public var familyName: String?
    public var givenName: String?
    public var birthDate: FullDate?
    public var issueDate: CBOR?
    public var expiryDate: CBOR?
    public var issuingCountry: String?
    public var issuingAuthority: String?
    public var documentNumber: String?
    public var portrait: Data?
    public var drivingPrivileges: [DrivingPrivilege]?
    public var unDistinguishingSign: String?
    /// `age_over_NN` → value.
    public var ageOver: [Int: Bool]
    /// Every other element, as received.
    public var other: [String: CBOR]

    /// Reads the elements of the `org.iso.18013.5.1` namespace, checking each one's type.
    public init(elements: [String: CBOR]) throws(MDocError) {
        for (id, value) in elements { try MDL.validate(namespace: MDL.namespace, element: id, value: value) }
        func text(_ e: MDL.Element) -> String? { elements[e.rawValue]?.textValue }
        familyName = text(.familyName)
        givenName = text(.givenName)
        birthDate = elements[MDL.Element.birthDate.rawValue].flatMap { try? FullDate($0) }
        issueDate = elements[MDL.Element.issueDate.rawValue]
        expiryDate = elements[MDL.Element.expiryDate.rawValue]
        issuingCountry = text(.issuingCountry)
        issuingAuthority = text(.issuingAuthority)
        documentNumber = text(.documentNumber)
        portrait = elements[MDL.Element.portrait.rawValue]?.bytesValue
        drivingPrivileges = try elements[MDL.Element.drivingPrivileges.rawValue].map { (v: CBOR) throws(MDocError) in
            try DrivingPrivilege.list(v)
        }
        unDistinguishingSign = text(.unDistinguishingSign)
        var ages: [Int: Bool] = [:]
        var rest: [String: CBOR] = [:]
        let typed: Set<MDL.Element> = [
            .familyName, .givenName, .birthDate, .issueDate, .expiryDate, .issuingCountry, .issuingAuthority,
            .documentNumber, .portrait, .drivingPrivileges, .unDistinguishingSign,
        ]
        for (id, value) in elements {
            if id.hasPrefix("age_over_"), let n = Int(id.dropFirst(9)), let b = value.boolValue {
                ages[n] = b
            } else if let e = MDL.Element(rawValue: id), typed.contains(e) {
                continue
            } else {
                rest[id] = value
            }
        }
        ageOver = ages
        other = rest
    }
}
