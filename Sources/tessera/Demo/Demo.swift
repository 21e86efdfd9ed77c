import ArgumentParser
import Crypto
import Foundation
import TesseraCore
import TesseraCBOR
import TesseraCOSE
import X509

/// `tessera demo`: every flow Tessera implements, end to end on this machine, story first.
///
/// `DemoSession` (holder and reader orchestrators over the simulated radio), `DemoLoopback` (two processes over
/// the loopback radio), `DemoSDJWT` (a PID-like SD-JWT VC issued, presented with key binding, verified),
/// `DemoRemote` (OpenID4VP presentations of both credential formats to the verifier service on loopback),
/// `DemoWalletProvider`, `DemoLedger` and `DemoVault` (two users, their vaults, a message). Last, a few lines on the ISO/IEC 18013-5 Annex D DeviceResponse
/// (D.4.1.2): its issuerAuth COSE_Sign1 (§9.1.2.4) verified with the document signer key from x5chain; the
/// diagnostic notation of it only with `--annex-d`.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run every flow end to end: in person (ISO 18013-5), remote (OpenID4VP), Wallet Provider, personal vault.",
        discussion: """
            Everything runs on this machine with test issuers and keys in temporary directories ($TESSERA_HOME is \
            not touched). The run ends with the published ISO/IEC 18013-5 Annex D DeviceResponse checked; \
            --annex-d also prints it in CBOR diagnostic notation.
            """)

    @Option(help: "Run the vault part on this nats-server instead of the in-process bus (it must trust $TESSERA_HOME/ledger's operator: `tessera ledger nats-config`).")
    var nats: String?
    @Flag(name: .customLong("annex-d"), help: "Also print the Annex D DeviceResponse and its MSO in diagnostic notation.")
    var annexD = false

    @Flag(help: "With --annex-d, print the whole diagnostic notation instead of the abridged one.")
    var full = false

    func run() async throws {
        print("Tessera \(Tessera.version) demo: a wallet presents an mDL in person and a PID and an mDL remotely, wallet")
        print("instances are activated at a Wallet Provider, and two users enroll at a personal-vault ledger and message")
        print("each other through their end-to-end encrypted vaults.")
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
        print("")
        try await DemoVault.run(nats: nats)
        print("")
        try annexDCheck(dump: annexD || full)
    }

    /// The Annex D DeviceResponse: a summary, its issuerAuth signature verified (CI looks for
    /// `issuerAuth signature: valid`), and with `dump` the diagnostic notation.
    func annexDCheck(dump: Bool) throws {
        print("== ISO/IEC 18013-5 Annex D: the standard's sample DeviceResponse ==")
        guard let url = Bundle.module.url(forResource: "annex-d-device-response", withExtension: "cbor") else {
            throw UserFacingError("the embedded Annex D DeviceResponse is missing from this build")
        }
        let bytes = try Data(contentsOf: url)
        let response = try CBOR.decode(bytes)
        if dump {
            print("DeviceResponse, \(bytes.count) bytes:")
            print(response.diagnostic(full ? .full : .abridged))
        }
        guard let document = response["documents"]?.arrayValue?.first,
            let docType = document["docType"]?.textValue,
            let issuerAuthItem = document["issuerSigned"]?["issuerAuth"]
        else { throw UserFacingError("DeviceResponse has no document with issuerSigned.issuerAuth") }
        // issuerAuth is an untagged COSE_Sign1 (ISO 18013-5 §9.1.2.4).
        let issuerAuth = try COSESign1(cbor: issuerAuthItem)
        guard let certificateDER = issuerAuth.unprotected.x5chain?.first ?? issuerAuth.protected.headers.x5chain?.first
        else { throw UserFacingError("issuerAuth carries no x5chain") }
        let certificate = try Certificate(derEncoded: Array(certificateDER))
        guard let key = P256.Signing.PublicKey(certificate.publicKey) else {
            throw UserFacingError("the document signer key is not a P-256 key")
        }
        if dump, let payload = issuerAuth.payload, let mso = try? CBOR.decode(payload) {
            var options = CBORDiagnosticOptions.abridged
            options.maxElements = 4
            print("MobileSecurityObject (issuerAuth payload, tag 24):")
            print(mso.diagnostic(options))
        }
        let elements = (document["issuerSigned"]?["nameSpaces"]?.mapValue?.entries ?? [])
            .reduce(0) { $0 + ($1.value.arrayValue?.count ?? 0) }
        print("DeviceResponse: \(bytes.count) bytes, document \(docType), \(elements) issuer-signed data elements")
        print("document signer: \(certificate.subject), valid \(certificate.notValidBefore) – \(certificate.notValidAfter) (only its signature is checked here)")
        do {
            try issuerAuth.verify(with: .p256(key))
            print("issuerAuth signature: valid")
        } catch {
            throw UserFacingError("issuerAuth signature: INVALID (\(error))")
        }
        if !dump { print("(tessera demo --annex-d prints it in CBOR diagnostic notation)") }
    }
}
