import Crypto
import Foundation
import TesseraJOSE
import TesseraCore

/// One `transaction_data` entry (§5.1, §8.4): the base64url string exactly as received (its hash goes into
/// the presentation, B.3.3.1) and the object it encodes.
public struct TransactionData: Sendable, Hashable {
    /// The string as received; hashed without decoding (B.3.3.1).
    public let encoded: String
    /// The decoded JSON object, type-specific members included.
    public let object: JSONObject
    /// The `type` member: which transaction data type this is; the wallet must support it (§5.1).
    public let type: String
    /// `credential_ids`: DCQL credential query ids that may authorize it.
    public let credentialIds: [String]
    /// `transaction_data_hashes_alg` (B.3.3.1), when given.
    public let hashAlgorithms: [String]?

    /// `"sha-256"`, the hash algorithm name this module computes (IANA hash names); the default when
    /// `transaction_data_hashes_alg` is absent (B.3.3.1).
    public static let sha256 = "sha-256"

    /// Decodes and checks the common members (§5.1): `type` a string, `credential_ids` a non-empty array of
    /// strings; `transaction_data_hashes_alg`, when present, a non-empty array of strings.
    public init(encoded: String, limits: JSONLimits = .default) throws(OpenID4VPError) {
        self.encoded = encoded
        let bytes: Data
        do {
            bytes = try Base64URL.decode(encoded)
        } catch {
            throw .invalidTransactionData("not base64url")
        }
        guard let value = try? JSONValue.parse(bytes, limits: limits), let object = value.objectValue else {
            throw .invalidTransactionData("not a JSON object")
        }
        self.object = object
        guard let type = object["type"]?.stringValue else { throw .invalidTransactionData("type is not a string") }
        self.type = type
        guard let ids = object["credential_ids"]?.arrayValue, !ids.isEmpty else {
            throw .invalidTransactionData("credential_ids is not a non-empty array")
        }
        var credentialIds: [String] = []
        for id in ids {
            guard let text = id.stringValue else { throw .invalidTransactionData("credential_ids holds a non-string") }
            credentialIds.append(text)
        }
        self.credentialIds = credentialIds
        if let algorithms = object["transaction_data_hashes_alg"] {
            guard let array = algorithms.arrayValue, !array.isEmpty, array.allSatisfy({ $0.stringValue != nil }) else {
                throw .invalidTransactionData("transaction_data_hashes_alg is not a non-empty array of strings")
            }
            self.hashAlgorithms = array.compactMap(\.stringValue)
        } else {
            self.hashAlgorithms = nil
        }
    }

    /// base64url(SHA-256(ASCII(encoded))) — the entry of `transaction_data_hashes` (B.3.3.1).
    public var sha256Hash: String { Base64URL.encode(SHA256.hash(data: Data(encoded.utf8))) }

    /// Checks the entry against the wallet and the query (§5.1, §8.5 `invalid_transaction_data`, B.3.3): a
    /// supported type; ids naming credential queries; SD-JWT VC queries that require holder binding; hashes with
    /// `sha-256` available. No transaction data type bound to mdoc data elements is defined, so mdoc queries with transaction data are refused.
    func validate(against query: DCQLQuery, supportedTypes: Set<String>) throws(OpenID4VPError) {
        guard supportedTypes.contains(type) else { throw .unsupportedTransactionDataType(type) }
        for id in credentialIds {
            guard let credentialQuery = query.credentialQuery(id: id) else {
                throw .invalidTransactionData("credential_ids names unknown credential query \"\(id)\"")
            }
            guard credentialQuery.format == .sdJWTVC else {
                throw .invalidTransactionData("transaction data for format \(credentialQuery.format) is not supported")
            }
            guard credentialQuery.requireCryptographicHolderBinding else {
                throw .invalidTransactionData("credential query \"\(id)\" does not require holder binding (B.3.3)")
            }
        }
        if let hashAlgorithms, !hashAlgorithms.contains(Self.sha256) {
            throw .invalidTransactionData("no supported hash algorithm in transaction_data_hashes_alg")
        }
    }
}
