import Foundation
import TesseraJOSE

/// `keys_to_attest`: a non-empty JSON array of elements, each a different key, at most `maxCount`.
struct KeysToAttest: Sendable {
    /// A wallet attests the keys of one credential issuance at a time; 16 is well above any batch the texts show.
    static let maxCount = 16

    let elements: [KeyAttestationElement]

    init(_ value: JSONValue?) throws(AttestationRequestError) {
        guard let value else { throw .missing("keys_to_attest") }
        guard let array = value.arrayValue, !array.isEmpty else { throw .malformed("keys_to_attest is not a non-empty array") }
        guard array.count <= Self.maxCount else { throw .malformed("keys_to_attest has more than \(Self.maxCount) keys") }
        var elements: [KeyAttestationElement] = []
        var seen = Set<String>()
        for (position, item) in array.enumerated() {
            guard let compact = item.stringValue else { throw .malformed("keys_to_attest[\(position)] is not a string") }
            let element = try KeyAttestationElement(compact, position: position)
            guard seen.insert(element.thumbprint).inserted else {
                throw .malformed("keys_to_attest names the same key twice")
            }
            elements.append(element)
        }
        self.elements = elements
    }

    func verifySignatures() throws(AttestationRequestError) {
        for element in elements { try element.verifySignature() }
    }

    /// Each element is current and lives at most an hour, like the request.
    func checkTimes(now: Date) throws(AttestationRequestError) {
        for element in elements where !WalletAttestationRequest.isCurrent(iat: element.iat, exp: element.exp, now: now) {
            throw .keysToAttest("keys_to_attest[\(element.position)] is expired, not yet valid or too long-lived")
        }
    }
}
