import Foundation
import TesseraCBOR

/// The mDL document type and namespace (ISO/IEC 18013-5:2021 §7.1, §7.2.1).
public enum MDL {
    /// The mDL document type, the `docType` of a Document and its MSO (§7.1).
    public static let docType = "org.iso.18013.5.1.mDL"
    /// The namespace of the mDL data elements of Table 5 (§7.2.1).
    public static let namespace = "org.iso.18013.5.1"

    /// Data element identifiers of `org.iso.18013.5.1` (§7.2.1, Table 5).
    public enum Element: String, CaseIterable, Sendable {
        /// Last name, surname or primary identifier of the holder (tstr; mandatory).
        case familyName = "family_name"
        /// First name(s), other name(s) or secondary identifier (tstr; mandatory).
        case givenName = "given_name"
        /// Date of birth (full-date; mandatory).
        case birthDate = "birth_date"
        /// Date the mDL was issued (full-date or tdate; mandatory).
        case issueDate = "issue_date"
        /// Date the mDL expires (full-date or tdate; mandatory).
        case expiryDate = "expiry_date"
        /// ISO 3166-1 alpha-2 code of the issuing authority's country (mandatory).
        case issuingCountry = "issuing_country"
        /// Name of the issuing authority (tstr; mandatory).
        case issuingAuthority = "issuing_authority"
        /// The number the issuing authority assigned to the mDL (tstr; mandatory).
        case documentNumber = "document_number"
        /// The holder's portrait, JPEG or JPEG 2000 bytes (bstr; mandatory).
        case portrait
        /// The categories of vehicle the holder may drive (`DrivingPrivileges`, §7.2.4; mandatory).
        case drivingPrivileges = "driving_privileges"
        /// Distinguishing sign of the issuing country, ISO/IEC 18013-1 Annex F (tstr; mandatory).
        case unDistinguishingSign = "un_distinguishing_sign"
        /// An audit control number the issuing authority assigned (tstr).
        case administrativeNumber = "administrative_number"
        /// Sex as ISO/IEC 5218 codes it: 0 not known, 1 male, 2 female, 9 not applicable (uint).
        case sex
        /// Height in centimetres (uint).
        case height
        /// Weight in kilograms (uint).
        case weight
        /// Eye colour, one of the values Table 5 lists (tstr).
        case eyeColour = "eye_colour"
        /// Hair colour, one of the values Table 5 lists (tstr).
        case hairColour = "hair_colour"
        /// Country and municipality or state/province of birth (tstr).
        case birthPlace = "birth_place"
        /// The address where the holder lives (tstr).
        case residentAddress = "resident_address"
        /// When the portrait was taken (tdate).
        case portraitCaptureDate = "portrait_capture_date"
        /// The holder's age in years (uint).
        case ageInYears = "age_in_years"
        /// The holder's year of birth (uint).
        case ageBirthYear = "age_birth_year"
        /// ISO 3166-2 subdivision code of the issuing jurisdiction (tstr).
        case issuingJurisdiction = "issuing_jurisdiction"
        /// ISO 3166-1 alpha-2 code of the holder's nationality.
        case nationality
        /// City where the holder lives (tstr).
        case residentCity = "resident_city"
        /// State, province or district where the holder lives (tstr).
        case residentState = "resident_state"
        /// Postal code of the holder's residence (tstr).
        case residentPostalCode = "resident_postal_code"
        /// ISO 3166-1 alpha-2 code of the country where the holder lives.
        case residentCountry = "resident_country"
        /// Family name in the full UTF-8 character set (tstr).
        case familyNameNationalCharacter = "family_name_national_character"
        /// Given name in the full UTF-8 character set (tstr).
        case givenNameNationalCharacter = "given_name_national_character"
        /// Image of the holder's signature or usual mark (bstr).
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
        /// Text string.
        case text = "tstr"
        /// `full-date`: an RFC 3339 date as tag 1004 text (RFC 8943).
        case fullDate = "full-date"
        /// Either a `full-date` or a `tdate`; `issue_date` and `expiry_date` allow both.
        case fullDateOrTDate = "full-date / tdate"
        /// `tdate`: an RFC 3339 date-time as tag 0 text (RFC 8949 §3.4.1).
        case tdate
        /// Byte string.
        case bytes = "bstr"
        /// Unsigned integer.
        case uint
        /// Boolean (the `age_over_NN` elements).
        case bool
        /// Text of two upper-case letters (ISO 3166-1 alpha-2); the check does not look the code up.
        case countryCode = "tstr (ISO 3166-1 alpha-2)"
        /// An array of `DrivingPrivilege` maps (§7.2.4).
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
    /// One restriction or condition on a privilege (§7.2.4; the codes are those of ISO/IEC 18013-2).
    public struct Code: Codable, Sendable, Equatable {
        /// The code, as the issuing authority writes it (e.g. `"01"`).
        public var code: String
        /// Sign of the code (e.g. `"="`, `"<"`), when the code has a value.
        public var sign: String?
        /// Value the sign applies to.
        public var value: String?

        /// A code with an optional sign and value.
        public init(code: String, sign: String? = nil, value: String? = nil) {
            self.code = code
            self.sign = sign
            self.value = value
        }
    }

    /// Vehicle category code, e.g. `"A"`, `"B"`, `"C1"` (the categories of ISO/IEC 18013-1).
    public var vehicleCategoryCode: String
    /// Date the privilege was first granted.
    public var issueDate: FullDate?
    /// Date the privilege expires.
    public var expiryDate: FullDate?
    /// Restrictions and conditions on the privilege.
    public var codes: [Code]?

    enum CodingKeys: String, CodingKey {
        case vehicleCategoryCode = "vehicle_category_code"
        case issueDate = "issue_date"
        case expiryDate = "expiry_date"
        case codes
    }

    /// A privilege with its optional dates and codes.
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
    /// `family_name`.
    public var familyName: String?
    /// `given_name`.
    public var givenName: String?
    /// `birth_date`.
    public var birthDate: FullDate?
    /// `issue_date` as received: a `full-date` (tag 1004) or a `tdate` (tag 0), both allowed.
    public var issueDate: CBOR?
    /// `expiry_date` as received: a `full-date` (tag 1004) or a `tdate` (tag 0), both allowed.
    public var expiryDate: CBOR?
    /// `issuing_country`: ISO 3166-1 alpha-2.
    public var issuingCountry: String?
    /// `issuing_authority`.
    public var issuingAuthority: String?
    /// `document_number`.
    public var documentNumber: String?
    /// `portrait`: the image bytes (JPEG or JPEG 2000), not decoded.
    public var portrait: Data?
    /// `driving_privileges`, read into typed values (§7.2.4).
    public var drivingPrivileges: [DrivingPrivilege]?
    /// `un_distinguishing_sign`.
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
