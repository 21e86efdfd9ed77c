import Foundation

/// The CBOR map `generateAssertion` returns, `{"signature": bstr, "authenticatorData": bstr}`, taken apart so a
/// wallet can send the two parts the way the production IT-Wallet client does (`hardware_signature`,
/// `integrity_assertion`).
public struct AppAttestAssertionObject: Sendable {
    /// DER ECDSA signature.
    public let signature: Data
    public let authenticatorData: Data

    public init(_ bytes: Data) throws(DeviceAttestationError) {
        do throws(AttestationParseError) {
            let map = try AppAttestCBOR.map(bytes, maxBytes: AttestationLimits.maxAssertionObjectBytes, "assertion")
            signature = try AppAttestCBOR.bytes(map, "signature")
            authenticatorData = try AppAttestCBOR.bytes(map, "authenticatorData")
        } catch {
            throw .malformedAssertion(error.description)
        }
    }
}
