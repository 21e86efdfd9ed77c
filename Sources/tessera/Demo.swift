import ArgumentParser
import Crypto
import Foundation
import TesseraCore
import TesseraCBOR
import TesseraCOSE
import X509

/// `tessera demo`: the most useful end-to-end thing Tessera can do today, on embedded data.
///
/// First the ISO/IEC 18013-5 Annex D DeviceResponse (D.4.1.2): printed abridged, its issuerAuth
/// COSE_Sign1 (§9.1.2.4) verified with the document signer key from x5chain. Then `DemoSession` (holder and
/// reader orchestrators over the simulated radio), `DemoLoopback` (two processes over the loopback radio) and
/// `DemoSDJWT` (a PID-like SD-JWT VC issued, presented with key binding, verified) and `DemoRemote` (OpenID4VP
/// presentations of both credential formats to the verifier service on loopback). `DemoSession`:
/// a test issuer, holder and reader run one presentation in process.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Annex D, then a full in-process ISO 18013-5 presentation: issue, engage, request, respond, verify.")

    @Flag(help: "Print the whole diagnostic notation instead of the abridged one.")
    var full = false

    func run() async throws {
        guard let url = Bundle.module.url(forResource: "annex-d-device-response", withExtension: "cbor") else {
            throw UserFacingError("the embedded Annex D DeviceResponse is missing from this build")
        }
        let bytes = try Data(contentsOf: url)
        let response = try CBOR.decode(bytes)
        print("ISO/IEC 18013-5 Annex D DeviceResponse, \(bytes.count) bytes:")
        print(response.diagnostic(full ? .full : .abridged))
        print("")

        guard let document = response["documents"]?.arrayValue?.first,
            let docType = document["docType"]?.textValue,
            let issuerAuthItem = document["issuerSigned"]?["issuerAuth"]
        else { throw UserFacingError("DeviceResponse has no document with issuerSigned.issuerAuth") }
        print("document: \(docType)")

        // issuerAuth is an untagged COSE_Sign1 (ISO 18013-5 §9.1.2.4).
        let issuerAuth = try COSESign1(cbor: issuerAuthItem)
        guard let certificateDER = issuerAuth.unprotected.x5chain?.first ?? issuerAuth.protected.headers.x5chain?.first
        else { throw UserFacingError("issuerAuth carries no x5chain") }
        let certificate = try Certificate(derEncoded: Array(certificateDER))
        guard let key = P256.Signing.PublicKey(certificate.publicKey) else {
            throw UserFacingError("the document signer key is not a P-256 key")
        }
        if let payload = issuerAuth.payload, let mso = try? CBOR.decode(payload) {
            var options = CBORDiagnosticOptions.abridged
            options.maxElements = 4
            print("MobileSecurityObject (issuerAuth payload, tag 24):")
            print(mso.diagnostic(options))
        }
        print("document signer: \(certificate.subject), valid \(certificate.notValidBefore) – \(certificate.notValidAfter)")
        do {
            try issuerAuth.verify(with: .p256(key))
            print("issuerAuth signature: valid")
        } catch {
            throw UserFacingError("issuerAuth signature: INVALID (\(error))")
        }
        print("")
        try await DemoSession.run()
        print("")
        try await DemoLoopback.run()
        print("")
        try await DemoSDJWT.run(now: Date(), random: SystemRandomSource())
        print("")
        try await DemoRemote.run()
        print("")
        try await DemoWalletProvider.run()
        print("")
        try await DemoLedger.run()
    }
}
