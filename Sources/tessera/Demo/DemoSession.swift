import Crypto
import Foundation
import HolderKit
import MDoc
import ProximityTransport
import TesseraCBOR
import TesseraCore
import TesseraTrust
import VerifierKit
import ProximityTransportTesting
import TesseraTrustTesting

/// The second half of `tessera demo`: a test issuer, then a holder and a reader — each an orchestrator
/// with single-use sessions — run one ISO 18013-5 presentation over the simulated BLE radio: QR engagement,
/// SessionEstablishment with ReaderAuth, consent to all but the portrait, response, verification.
enum DemoSession {
    static func run(now: Date = Date(), random: any RandomSource = SystemRandomSource()) async throws {
        print("== ISO/IEC 18013-5 proximity presentation over the simulated BLE radio ==")
        var generator = random.generator
        let iaca = try IACAIssuer.create(
            IACARootRequest(country: "US", commonName: "Tessera Demo IACA", issuerAlternativeName: .rfc822Name("iaca@example.com")),
            now: now, random: &generator)
        let ds = try iaca.issueDocumentSigner(DocumentSignerRequest(commonName: "Tessera Demo DS"), now: now, random: &generator)
        guard case .p256(let dsKey) = ds.privateKey else { throw UserFacingError("demo document signer key is not P-256") }
        print("issuer: \(iaca.root.certificate.subject) → \(ds.certificate.subject)")
        let deviceKey = SoftwareDeviceKey(try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32)))
        let issued = try MDocIssuer(
            documentSignerKey: .p256(dsKey), certificateChain: [try ds.derEncoded()], clock: FixedClock(now), random: random
        ).issue(
            docType: MDL.docType, nameSpaces: [MDL.namespace: SampleMDL.claims], deviceKey: deviceKey.publicKey,
            validUntil: now.addingTimeInterval(30 * 86_400))
        print("issued: \(MDL.docType) with \(SampleMDL.claims.count) elements")
        let credential = StoredCredential(docType: MDL.docType, issuerSigned: issued, deviceKey: deviceKey)

        let air = SimulatedAir(configuration: SimulatedAirConfiguration(attMTU: 185))
        let (mdocRadio, readerRadio) = air.makeTransportPair()
        let gate = LoopbackRadioGate(directory: FileManager.default.temporaryDirectory)
        let holder = HolderOrchestrator(gate: gate, crypto: MDocCryptoService(random: random), bluetooth: mdocRadio)
        let camera = InProcessCamera()
        let request = VerificationRequest.custom(["family_name", "given_name", "age_over_21", "portrait"])
        let verifier = VerifierOrchestrator(
            gate: gate, camera: camera, bluetooth: readerRadio, crypto: ReaderCrypto(random: random),
            configuration: .init(trustAnchors: iaca.trustAnchors, clock: FixedClock(now)))

        let holderScreens = Task {
            for await state in holder.states {
                print("holder state: \(state.phase.rawValue)")
                switch state {
                case .presentingEngagement:
                    guard let engagement = await holder.currentEngagement else { break }
                    print("holder shows the QR code (version \(engagement.qrCode.version)):")
                    print(engagement.qrCode.terminalString())
                    print("\(engagement.uri.prefix(48))… (\(engagement.uri.count) characters)")
                    camera.show(engagement.uri)
                case .requestReceived:
                    guard let received = await holder.pendingRequest else { break }
                    let asked = received.available.values.flatMap { $0.values.flatMap(\.keys) }.sorted()
                    print("holder: the reader asks for \(asked.joined(separator: ", "))")
                    var consent = received.allAvailable
                    consent[MDL.docType]?[MDL.namespace]?.remove("portrait")
                    print("holder: user allows all but the portrait")
                    await holder.userDidConsent(consent)
                default: break
                }
                if state.isTerminal { break }
            }
        }
        try await holder.startPresentation(credential)
        try await verifier.startVerification(request)
        let final = await verifier.waitForCompletion()
        await holderScreens.value
        guard case .success(let response) = final else {
            throw UserFacingError("mdoc verification: INVALID (\(String(describing: final?.error)))")
        }
        for document in response.documents {
            for (element, value) in (document.issuerSignedElements[MDL.namespace] ?? [:]).sorted(by: { $0.key < $1.key }) {
                print("  \(element) = \(value.diagnostic())")
            }
        }
        for error in response.notReturned { print("  not returned: \(error)") }
        print("messages: SessionEstablishment \(response.requestBytes) bytes, SessionData \(response.responseBytes) bytes")
        print("mdoc verification: authentic (issuer signature, DS chain to the IACA, digests, validity, device signature)")
    }
}
