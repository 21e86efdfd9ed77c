import Crypto
import Foundation
import MDoc
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraTrust

/// The second half of `tessera demo`: a test issuer, a holder and a reader run one ISO 18013-5
/// presentation in process — issuance, QR engagement, session encryption both ways, the
/// holder's response and the reader's verification.
enum DemoSession {
    static func run(now: Date = Date(), random: any RandomSource = SystemRandomSource()) async throws {
        print("== Test issuer → holder → reader (ISO/IEC 18013-5) ==")
        var generator = random.generator
        let iaca = try IACAIssuer.create(
            IACARootRequest(country: "US", commonName: "Tessera Demo IACA", issuerAlternativeName: .rfc822Name("iaca@example.com")),
            now: now, random: &generator)
        let ds = try iaca.issueDocumentSigner(DocumentSignerRequest(commonName: "Tessera Demo DS"), now: now, random: &generator)
        guard case .p256(let dsKey) = ds.privateKey else { throw UserFacingError("demo document signer key is not P-256") }
        print("issuer: \(iaca.root.certificate.subject) → \(ds.certificate.subject)")

        // Issuance: the holder's device key is bound into the MSO.
        let deviceKey = SoftwareDeviceKey(try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32)))
        let issuer = MDocIssuer(
            documentSignerKey: .p256(dsKey), certificateChain: [try ds.derEncoded()], clock: FixedClock(now), random: random)
        let issued = try issuer.issue(
            docType: MDL.docType, nameSpaces: [MDL.namespace: sampleClaims], deviceKey: deviceKey.publicKey,
            validUntil: now.addingTimeInterval(30 * 86_400))
        print("issued: \(MDL.docType) with \(sampleClaims.count) elements")

        // Holder shows a QR code; the reader scans it.
        let deviceEphemeral = try EphemeralPrivateKey.generate(random: random)
        let ble = BLEOptions(supportsPeripheralServerMode: true, supportsCentralClientMode: false, peripheralServerModeUUID: UUID())
        let engagement = try DeviceEngagement(
            security: .init(eDeviceKey: deviceEphemeral.publicCOSEKey),
            deviceRetrievalMethods: [DeviceRetrievalMethod(options: .ble(ble))]
        ).encoded()
        let qr = MDocQRCode.uri(for: engagement.bytes)
        print("QR: \(qr.prefix(48))… (\(qr.count) characters)")
        let scanned = try MDocQRCode.parse(qr)

        // Reader: SessionEstablishment with an encrypted DeviceRequest.
        let readerEphemeral = try EphemeralPrivateKey.generate(random: random)
        let readerKeyBytes = try EncodedCBOR<CBOR>(encoding: readerEphemeral.publicCOSEKey.cbor)
        let readerTranscript = SessionTranscript(
            deviceEngagementBytes: scanned.bytes, eReaderKeyBytes: readerKeyBytes.bytes, handover: .qr)
        let readerSession = try SessionEncryption(
            role: .mdocReader, privateKey: readerEphemeral, peerPublicKey: scanned.engagement.security.eDeviceKey(),
            sessionTranscript: readerTranscript)
        let items = ItemsRequest(
            docType: MDL.docType,
            nameSpaces: [MDL.namespace: ["family_name": false, "given_name": false, "age_over_21": false, "portrait": false]])
        let request = DeviceRequest(docRequests: [DocRequest(itemsRequest: try EncodedCBOR(encoding: items))])
        let establishment = try SessionEstablishment(eReaderKey: readerKeyBytes, data: readerSession.encrypt(request.encoded()))
        let wireEstablishment = try establishment.encoded()
        print("reader → holder: SessionEstablishment, \(wireEstablishment.count) bytes")

        // Holder: decrypts, asks for consent (here: everything but the portrait), answers.
        let received = try SessionEstablishment(bytes: wireEstablishment)
        let holderTranscript = SessionTranscript(
            deviceEngagementBytes: engagement.bytes, eReaderKeyBytes: received.eReaderKey.bytes, handover: .qr)
        let holderSession = try SessionEncryption(
            role: .mdoc, privateKey: deviceEphemeral, peerPublicKey: COSEKey(cbor: received.eReaderKey.value),
            sessionTranscript: holderTranscript)
        let holderRequest = try DeviceRequest(bytes: holderSession.decrypt(received.data))
        let credential = StoredCredential(docType: MDL.docType, issuerSigned: issued, deviceKey: deviceKey)
        let consent: [String: [String: Set<String>]] = [MDL.docType: [MDL.namespace: ["family_name", "given_name", "age_over_21"]]]
        let response = try await DeviceResponseGenerator.generate(
            request: holderRequest, credentials: [credential], selection: consent, sessionTranscript: holderTranscript)
        let sessionData = try SessionData(data: holderSession.encrypt(response.encoded())).encoded()
        print("holder → reader: SessionData, \(sessionData.count) bytes (portrait withheld)")

        // Reader: decrypts and verifies against the IACA.
        let reply = try SessionData(bytes: sessionData)
        guard let ciphertext = reply.data else { throw UserFacingError("holder ended the session") }
        let decrypted = try DeviceResponse(bytes: readerSession.decrypt(ciphertext))
        let outcome = await MDocVerifier(trustAnchors: iaca.trustAnchors).verify(
            decrypted, request: request, sessionTranscript: readerTranscript, at: now)
        for document in outcome.documents {
            for (element, value) in (document.issuerSignedElements[MDL.namespace] ?? [:]).sorted(by: { $0.key < $1.key }) {
                print("  \(element) = \(value.diagnostic())")
            }
        }
        for error in outcome.allErrors where error.isCompletenessFailure { print("  not returned: \(error)") }
        guard outcome.isAuthentic else {
            for error in outcome.allErrors { print("  error: [\(error.code)] \(error)") }
            throw UserFacingError("mdoc verification: INVALID")
        }
        print("mdoc verification: authentic (issuer signature, DS chain to the IACA, digests, validity, device signature)")
    }

    static var sampleClaims: [String: CBOR] { SampleMDL.claims }
}
