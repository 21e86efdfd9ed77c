import Crypto
import Foundation
import Testing
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraTrust
import X509
@testable import MDoc

/// Annex D verified end to end, and a holder → reader round trip with both DeviceAuth kinds.
@Suite struct VerificationTests {
    @Test func annexDResponseVerifiesAtThePinnedInstant() async throws {
        let transcript = try SessionTranscript(taggedBytes: AnnexD.bytes("SessionTranscriptBytes"))
        let request = try DeviceRequest(bytes: AnnexD.bytes("DeviceRequest"))
        let response = try DeviceResponse(bytes: AnnexD.bytes("DeviceResponse"))
        let anchors = try TrustAnchors(derCertificates: [AnnexD.bytes("IACARootCertificate")])
        let readerKey = try AnnexD.p256Private("eReaderKey_d")
        let outcome = await MDocVerifier(trustAnchors: anchors).verify(
            response, request: request, sessionTranscript: transcript, at: AnnexD.validationTime,
            readerEphemeralKey: .p256(readerKey))
        #expect(outcome.allErrors == [])
        let elements = try #require(outcome.documents.first?.issuerSignedElements[MDL.namespace])
        #expect(elements["family_name"] == "Doe")
        #expect(elements["document_number"] == "123456789")
        #expect(Set(elements.keys) == ["family_name", "document_number", "driving_privileges", "issue_date", "expiry_date", "portrait"])
        let mdl = try MDLData(elements: elements)
        #expect(mdl.drivingPrivileges?.first?.vehicleCategoryCode == "A")
    }

    @Test func annexDIsRejectedWhenExpiredAndWithoutTheReaderKey() async throws {
        let transcript = try SessionTranscript(taggedBytes: AnnexD.bytes("SessionTranscriptBytes"))
        let response = try DeviceResponse(bytes: AnnexD.bytes("DeviceResponse"))
        let anchors = try TrustAnchors(derCertificates: [AnnexD.bytes("IACARootCertificate")])
        let later = Date(timeIntervalSince1970: 1_700_000_000)  // 2023: the MSO and DS have expired
        let outcome = await MDocVerifier(trustAnchors: anchors).verify(response, sessionTranscript: transcript, at: later)
        let codes = Set(outcome.allErrors.map(\.code))
        #expect(codes.isSuperset(of: ["mso_expired", "document_signer_chain_invalid", "device_mac_key_unavailable"]))
    }

    @Test func annexDReaderAuthVerifiesAgainstTheReaderRoot() async throws {
        let transcript = try SessionTranscript(taggedBytes: AnnexD.bytes("SessionTranscriptBytes"))
        let request = try DeviceRequest(bytes: AnnexD.bytes("DeviceRequest"))
        let docRequest = try #require(request.docRequests.first)
        #expect(docRequest.itemsRequest.bytes == AnnexD.bytes("ItemsRequest"))
        #expect(ReaderAuthentication.bytes(sessionTranscript: transcript, itemsRequestBytes: docRequest.itemsRequest.bytes)
            == AnnexD.bytes("ReaderAuthenticationBytes"))
        let roots = try TrustAnchors(derCertificates: [AnnexD.bytes("ReaderRootCertificate")])
        let outcome = await ReaderAuthentication.verify(docRequest, sessionTranscript: transcript, readerRoots: roots, at: AnnexD.validationTime)
        #expect(outcome.errors == [])
        // Against the IACA instead of the reader root: untrusted.
        let wrong = try TrustAnchors(derCertificates: [AnnexD.bytes("IACARootCertificate")])
        let rejected = await ReaderAuthentication.verify(docRequest, sessionTranscript: transcript, readerRoots: wrong, at: AnnexD.validationTime)
        #expect(rejected.errors.contains { $0.code == "reader_chain_invalid" })
    }

    @Test func holderResponseWithDeviceSignatureVerifies() async throws {
        let world = try TestWorld()
        let (transcript, _) = try world.transcript()
        let request = try TestWorld.request(["family_name", "age_over_18", "portrait"])
        let credential = try world.credential
        let response = try await DeviceResponseGenerator.generate(
            request: request, credentials: [credential],
            selection: DeviceResponseGenerator.selectAll(request: request, credentials: [credential]),
            sessionTranscript: transcript)
        // What goes on the wire decodes to the same thing and verifies.
        let wire = try DeviceResponse(bytes: response.encoded())
        let outcome = await MDocVerifier(trustAnchors: world.iaca.trustAnchors).verify(
            wire, request: request, sessionTranscript: transcript, at: TestWorld.now)
        #expect(outcome.allErrors == [])
        let elements = try #require(outcome.documents.first?.issuerSignedElements[MDL.namespace])
        #expect(elements == ["family_name": "Doe", "age_over_18": true, "portrait": .bytes(Data([0xff, 0xd8, 0xff, 0xe0]))])
    }

    @Test func holderResponseWithDeviceMacVerifies() async throws {
        let world = try TestWorld()
        let (transcript, reader) = try world.transcript()
        let request = try TestWorld.request(["given_name"])
        let credential = try world.credential
        let response = try await DeviceResponseGenerator.generate(
            request: request, credentials: [credential], selection: [MDL.docType: [MDL.namespace: ["given_name"]]],
            sessionTranscript: transcript, mode: .mac(readerEphemeralKey: reader.publicCOSEKey))
        guard case .deviceMac = response.documents?.first?.deviceSigned.deviceAuth else {
            Issue.record("expected DeviceMac")
            return
        }
        let verifier = MDocVerifier(trustAnchors: world.iaca.trustAnchors)
        let outcome = await verifier.verify(response, request: request, sessionTranscript: transcript, at: TestWorld.now, readerEphemeralKey: reader)
        #expect(outcome.allErrors == [])
        // Another reader key derives another EMacKey.
        let other = try EphemeralPrivateKey.generate(random: SeededRandomSource(seed: 99))
        let wrong = await verifier.verify(response, request: request, sessionTranscript: transcript, at: TestWorld.now, readerEphemeralKey: other)
        #expect(wrong.allErrors == [.deviceMacInvalid(docType: MDL.docType)])
    }

    @Test func onlyConsentedElementsAreReturnedAsIssued() async throws {
        let world = try TestWorld()
        let (transcript, _) = try world.transcript()
        let request = try TestWorld.request(["family_name", "given_name", "birth_date"])
        let credential = try world.credential
        let response = try await DeviceResponseGenerator.generate(
            request: request, credentials: [credential], selection: [MDL.docType: [MDL.namespace: ["given_name", "portrait"]]],
            sessionTranscript: transcript)
        let items = try #require(response.documents?.first?.issuerSigned.nameSpaces?[MDL.namespace])
        #expect(items.map(\.value.elementIdentifier) == ["given_name"])  // portrait was not requested
        let issued = try #require(credential.issuerSigned.nameSpaces?[MDL.namespace]?.first { $0.value.elementIdentifier == "given_name" })
        #expect(items.first?.bytes == issued.bytes)
        let outcome = await MDocVerifier(trustAnchors: world.iaca.trustAnchors).verify(
            response, request: request, sessionTranscript: transcript, at: TestWorld.now)
        #expect(outcome.allErrors.sorted { "\($0)" < "\($1)" } == [
            .requestedElementMissing(namespace: MDL.namespace, element: "birth_date"),
            .requestedElementMissing(namespace: MDL.namespace, element: "family_name"),
        ])
    }

    @Test func documentsNotHeldAreDocumentErrors() async throws {
        let world = try TestWorld()
        let (transcript, _) = try world.transcript()
        let request = try TestWorld.request(["family_name"], namespace: "eu.europa.ec.eudi.pid.1", docType: "eu.europa.ec.eudi.pid.1")
        let response = try await DeviceResponseGenerator.generate(
            request: request, credentials: [try world.credential], selection: [:], sessionTranscript: transcript)
        #expect(response.documents == nil)
        #expect(response.documentErrors == [["eu.europa.ec.eudi.pid.1": 0]])
        let outcome = await MDocVerifier(trustAnchors: world.iaca.trustAnchors).verify(
            response, request: request, sessionTranscript: transcript, at: TestWorld.now)
        #expect(outcome.allErrors == [.documentError(docType: "eu.europa.ec.eudi.pid.1", code: 0)])
    }
}
