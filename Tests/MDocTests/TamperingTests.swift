import Crypto
import Foundation
import Testing
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraTrust
import X509
@testable import MDoc
import TesseraTrustTesting

/// The tampering matrix for `MDocVerifier` (ISO/IEC 18013-5:2021 §9.3.1).
///
/// Every test starts from one valid holder response (`TamperingFixture`), changes exactly one
/// thing, and asserts the *whole* error list — so a tampering that trips an unexpected extra
/// rule fails the test. Where one change inherently breaks two rules, both are asserted and the
/// comment says why. Every outcome is also checked on the wire form
/// (`DeviceResponse(bytes: response.encoded())`), see `TamperingFixture.verify`.
@Suite struct TamperingTests {
    static let day: TimeInterval = 86_400
    static let other = "org.example.other"

    // MARK: Baseline

    @Test func untamperedResponseVerifies() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let outcome = try await fixture.verify(fixture.response)
        #expect(outcome.allErrors == [])
        #expect(outcome.isValid)
        let document = try #require(outcome.documents.first)
        #expect(outcome.documents.count == 1)
        #expect(document.issuerSignedElements[MDL.namespace]?.keys.sorted() == TamperingFixture.requestedElements)
        #expect(document.issuerSignedElements[MDL.namespace]?["family_name"] == "Doe")
        #expect(document.deviceSignedElements == [:])
        #expect(document.documentSigner == fixture.world.documentSigner.certificate)
    }

    @Test func untamperedMacResponseVerifies() async throws {
        let fixture = try await TamperingFixture(world: TestWorld(), mac: true)
        guard case .deviceMac = fixture.response.documents?.first?.deviceSigned.deviceAuth else {
            Issue.record("expected DeviceMac")
            return
        }
        let outcome = try await fixture.verify(fixture.response, readerKey: fixture.readerKey)
        #expect(outcome.allErrors == [])
    }

    // MARK: 1. Issuer signature

    /// A bit flipped in r (byte 0) or in s (byte 63) of the issuerAuth signature.
    @Test(arguments: [0, 63]) func issuerSignatureBitFlipped(byte: Int) async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let tampered = try fixture.response.tamperingDocument { document in
            document.issuerSigned.issuerAuth = try document.issuerSigned.issuerAuth.flippingSignatureBit(byte: byte)
        }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.issuerSignatureInvalid(docType: MDL.docType)])
        // Digests of a forged MSO vouch for nothing: no issuer-signed value is handed out.
        #expect(outcome.documents.first?.issuerSignedElements == [:])
    }

    // MARK: 2. Document signer chain

    @Test func documentSignerChainToAnotherIACA() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        var generator = SeededRandomSource(seed: 77).generator
        let otherIACA = try IACAIssuer.create(
            IACARootRequest(country: "US", commonName: "Another Test IACA", issuerAlternativeName: .rfc822Name("other@example.com")),
            now: TestWorld.now.addingTimeInterval(-Self.day), random: &generator)
        let outcome = try await fixture.verify(
            fixture.response, verifier: MDocVerifier(trustAnchors: otherIACA.trustAnchors))
        // Exactly one error: the chain. The issuerAuth signature itself is still checked with
        // the x5chain leaf and verifies.
        #expect(outcome.allErrors.count == 1, "\(outcome.allErrors)")
        guard case .documentSignerChainInvalid(docType: MDL.docType, .untrustedRoot(let issuer))? = outcome.allErrors.first
        else {
            Issue.record("expected documentSignerChainInvalid(.untrustedRoot), got \(outcome.allErrors)")
            return
        }
        #expect(issuer.contains("Tessera Test IACA"))
        #expect(outcome.documents.first?.issuerSignedElements == [:])
    }

    /// An IACA with the very same subject name as the real one but another key: name matching
    /// alone must not make it a trust anchor for the real document signer.
    @Test func documentSignerChainToAnImpostorIACAOfTheSameName() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let impostor = try TestWorld(seed: 2).iaca
        #expect(impostor.root.certificate.subject == fixture.world.iaca.root.certificate.subject)
        #expect(impostor.root.certificate.publicKey != fixture.world.iaca.root.certificate.publicKey)
        let outcome = try await fixture.verify(
            fixture.response, verifier: MDocVerifier(trustAnchors: impostor.trustAnchors))
        // The impostor is found by name, so the chain fails on two links of the same fact (another
        // key): the DS signature does not verify with the impostor's key, and the DS
        // authorityKeyIdentifier is not the impostor's subjectKeyIdentifier.
        #expect(outcome.allErrors == [
            .documentSignerChainInvalid(docType: MDL.docType, .signatureInvalid(certificate: 0)),
            .documentSignerChainInvalid(
                docType: MDL.docType, .authorityKeyIdentifierMismatch(certificate: 0, profile: .documentSigner)),
        ])
    }

    // MARK: 3. Document signer certificate missing

    @Test func issuerAuthWithoutX5Chain() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let document = try #require(fixture.response.documents?.first)
        let msoBytes = try document.mso().bytes
        // Control: re-signing the same MSO with the chain is accepted, so what follows is about
        // the missing chain, not about re-signing.
        let resigned = try fixture.response.tamperingDocument { document in
            document.issuerSigned.issuerAuth = try HandIssuer.sign(
                msoBytes: msoBytes, world: fixture.world, x5chain: fixture.world.issuer.certificateChain)
        }
        #expect(try await fixture.verify(resigned).allErrors == [])

        let tampered = try fixture.response.tamperingDocument { document in
            document.issuerSigned.issuerAuth = try HandIssuer.sign(msoBytes: msoBytes, world: fixture.world, x5chain: nil)
        }
        let issuerAuth = try #require(tampered.documents?.first?.issuerSigned.issuerAuth)
        #expect(issuerAuth.unprotected.isEmpty)
        #expect(issuerAuth.protected.headers.x5chain == nil)
        let outcome = try await fixture.verify(tampered)
        // Without a certificate there is no key to check the signature with and no validity
        // window to place `signed` in: the one error is the missing certificate.
        #expect(outcome.allErrors == [.documentSignerCertificateMissing(docType: MDL.docType)])
        #expect(outcome.documents.first?.documentSigner == nil)
    }

    // MARK: 4. docType

    /// (a) The reader asked for another docType than the Document has.
    @Test func requestForAnotherDocTypeThanTheDocument() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let document = try #require(fixture.response.documents?.first)
        var items = try #require(fixture.request.docRequests.first?.itemsRequest.value)
        items.docType = Self.other
        // Per document (`verify(_:requested:…)`): the ItemsRequest's docType is compared with the Document's.
        let verified = await fixture.verifier.verify(
            document, requested: items, sessionTranscript: fixture.transcript, at: TestWorld.now)
        #expect(verified.errors == [.docTypeMismatch(expected: Self.other, found: MDL.docType, source: "Document")])

        // Per response: documents are matched to DocRequests by docType, so the mDL is reported as
        // a document nobody asked for, and the request for the other docType as unanswered.
        let request = DeviceRequest(docRequests: [DocRequest(itemsRequest: try EncodedCBOR(encoding: items))])
        let outcome = try await fixture.verify(fixture.response, request: request)
        #expect(outcome.allErrors == [
            .docTypeMismatch(expected: Self.other, found: MDL.docType, source: "Document"),
            .requestedDocumentMissing(docType: Self.other),
        ])
    }

    /// (b1) The MSO was issued for another docType; the holder presents it as an mDL and signs
    /// DeviceAuthentication over the mDL docType, so the device signature holds.
    @Test func msoIssuedForAnotherDocType() async throws {
        let world = try TestWorld()
        let issued = try world.issuer.issue(
            docType: Self.other, nameSpaces: TestWorld.mdlClaims, deviceKey: world.deviceKey.publicKey,
            validUntil: TestWorld.now.addingTimeInterval(30 * Self.day))
        let fixture = try await TamperingFixture(world: world, issuerSigned: issued)
        #expect(fixture.response.documents?.first?.docType == MDL.docType)
        let outcome = try await fixture.verify(fixture.response)
        #expect(outcome.allErrors == [.docTypeMismatch(expected: MDL.docType, found: Self.other, source: "MSO")])
    }

    /// (b2) Document.docType rewritten after the fact.
    @Test func documentDocTypeRewritten() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let tampered = try fixture.response.tamperingDocument { $0.docType = Self.other }
        let outcome = try await fixture.verify(tampered)
        // Four errors from one change, each inherent:
        // - the Document's docType is not the one requested;
        // - the request asked for an mDL and no Document claims to be one any more;
        // - the MSO still says mDL;
        // - DeviceAuthenticationBytes contain the docType, so the device signature (made over
        //   the mDL docType) does not verify over the rewritten one.
        #expect(outcome.allErrors == [
            .docTypeMismatch(expected: MDL.docType, found: Self.other, source: "Document"),
            .requestedDocumentMissing(docType: MDL.docType),
            .docTypeMismatch(expected: Self.other, found: MDL.docType, source: "MSO"),
            .deviceSignatureInvalid(docType: Self.other),
        ])
    }

    // MARK: 5. Digest mismatch

    @Test func elementValueChangedUnderItsDigestID() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let tampered = try fixture.response.tamperingDocument { document in
            let original = try document.item("family_name")
            var forged = original.value
            forged.elementValue = "Roe"
            #expect(forged.digestID == original.value.digestID)
            try document.replaceItem("family_name", with: try forged.encodedItem())
        }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.digestMismatch(namespace: MDL.namespace, element: "family_name")])
        // The forged value is not handed out; the others are.
        let elements = try #require(outcome.documents.first?.issuerSignedElements[MDL.namespace])
        #expect(elements["family_name"] == nil)
        #expect(elements.keys.sorted() == ["age_over_18", "birth_date", "given_name"])
    }

    // MARK: 6. Digest missing

    @Test func digestIDNotInTheMSO() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let digests = try #require(fixture.response.documents?.first?.mso().value.valueDigests[MDL.namespace])
        #expect(digests[1000] == nil)
        let tampered = try fixture.response.tamperingDocument { document in
            var item = try document.item("family_name").value
            item.digestID = 1000
            try document.replaceItem("family_name", with: try item.encodedItem())
        }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.digestMissing(namespace: MDL.namespace, element: "family_name", digestID: 1000)])
        #expect(outcome.documents.first?.issuerSignedElements[MDL.namespace]?["family_name"] == nil)
    }

    /// A genuine item copied under a namespace the MSO has no digests for.
    @Test func itemInANamespaceTheMSODoesNotCover() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let namespace = "org.example.unsigned"
        var digestID: UInt64 = .max
        let tampered = try fixture.response.tamperingDocument { document in
            let item = try document.item("given_name")
            digestID = item.value.digestID
            document.issuerSigned.nameSpaces?[namespace] = [item]
        }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.digestMissing(namespace: namespace, element: "given_name", digestID: digestID)])
        #expect(outcome.documents.first?.issuerSignedElements[namespace] == nil)
    }

    /// An item that borrows another element's digestID: the digest is there but is not its own.
    @Test func digestIDOfAnotherElement() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let tampered = try fixture.response.tamperingDocument { document in
            var item = try document.item("family_name").value
            item.digestID = try document.item("given_name").value.digestID
            try document.replaceItem("family_name", with: try item.encodedItem())
        }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.digestMismatch(namespace: MDL.namespace, element: "family_name")])
    }

    // MARK: 7. Non-byte-exact re-encoding

    /// The same IssuerSignedItem (equal in the CBOR data model) written with other bytes: the
    /// digest is over the bytes as received, so it no longer matches.
    @Test(arguments: ReEncoding.allCases) func elementBytesReEncoded(_ encoding: ReEncoding) async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let tampered = try fixture.response.tamperingDocument { document in
            let original = try document.item("family_name")
            let reEncoded = try EncodedCBOR<IssuerSignedItem>(bytes: encoding.apply(to: original.bytes))
            #expect(reEncoded.value == original.value)
            #expect(try CBOR.decode(reEncoded.bytes) == CBOR.decode(original.bytes))
            #expect(reEncoded.bytes != original.bytes)
            try document.replaceItem("family_name", with: reEncoded)
        }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.digestMismatch(namespace: MDL.namespace, element: "family_name")])
    }

    // MARK: 8. Digest algorithm

    @Test(arguments: ["MD5", "SHA-1", "sha-256"]) func unsupportedDigestAlgorithm(_ name: String) async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let issued = try #require(fixture.response.documents?.first?.mso().value)
        func signedMSO(_ algorithm: String) throws -> COSESign1 {
            var mso = MobileSecurityObject(
                digestAlgorithm: .sha256, valueDigests: issued.valueDigests, deviceKeyInfo: issued.deviceKeyInfo,
                docType: issued.docType, validityInfo: issued.validityInfo)
            mso.digestAlgorithm = algorithm
            return try HandIssuer.sign(mso, world: fixture.world)
        }
        // Control: the hand-built MSO with "SHA-256" is accepted.
        let control = try fixture.response.tamperingDocument { $0.issuerSigned.issuerAuth = try signedMSO("SHA-256") }
        #expect(try await fixture.verify(control).allErrors == [])

        let tampered = try fixture.response.tamperingDocument { $0.issuerSigned.issuerAuth = try signedMSO(name) }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.unsupportedDigestAlgorithm(name)])
        // No digest could be checked, so no element is handed out.
        #expect(outcome.documents.first?.issuerSignedElements == [:])
    }

    // MARK: 9–10. MSO validity window

    @Test func msoNotYetValidAtTheVerificationInstant() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        // 30 minutes before validFrom (= signed = TestWorld.now); the DS certificate is valid from
        // 1 hour before, so only the MSO is not yet valid.
        let instant = TestWorld.now.addingTimeInterval(-1_800)
        let outcome = try await fixture.verify(fixture.response, at: instant)
        #expect(outcome.allErrors == [.msoNotYetValid(validFrom: TestWorld.now, at: instant)])
    }

    @Test func msoIssuedWithAValidFromInTheFuture() async throws {
        let world = try TestWorld()
        let validFrom = TestWorld.now.addingTimeInterval(Self.day)
        let issued = try world.issuer.issue(
            docType: MDL.docType, nameSpaces: TestWorld.mdlClaims, deviceKey: world.deviceKey.publicKey,
            validFrom: validFrom, validUntil: validFrom.addingTimeInterval(30 * Self.day))
        let fixture = try await TamperingFixture(world: world, issuerSigned: issued)
        let early = try await fixture.verify(fixture.response, at: TestWorld.now)
        #expect(early.allErrors == [.msoNotYetValid(validFrom: validFrom, at: TestWorld.now)])
        // validFrom itself is inside the window.
        #expect(try await fixture.verify(fixture.response, at: validFrom).allErrors == [])
    }

    @Test func msoExpiredWhileTheCertificatesAreStillValid() async throws {
        let world = try TestWorld()
        let validUntil = TestWorld.now.addingTimeInterval(Self.day)
        let fixture = try await TamperingFixture(world: world, issuerSigned: try world.issueMDL(validUntil: validUntil))
        // Two days later the DS certificate (365 days) and the IACA are still valid.
        let later = TestWorld.now.addingTimeInterval(2 * Self.day)
        let outcome = try await fixture.verify(fixture.response, at: later)
        #expect(outcome.allErrors == [.msoExpired(validUntil: validUntil, at: later)])
        // validUntil itself is inside the window; one second after is not.
        #expect(try await fixture.verify(fixture.response, at: validUntil).allErrors == [])
        let justAfter = validUntil.addingTimeInterval(1)
        #expect(try await fixture.verify(fixture.response, at: justAfter).allErrors == [
            .msoExpired(validUntil: validUntil, at: justAfter)
        ])
    }

    // MARK: 11. MSO signed outside the DS certificate validity

    /// Signed two hours before the DS certificate's notBefore (TestWorld.now − 1 h).
    @Test func msoSignedBeforeTheDocumentSignerNotBefore() async throws {
        let world = try TestWorld()
        let signed = TestWorld.now.addingTimeInterval(-7_200)
        #expect(signed < world.documentSigner.certificate.notValidBefore)
        let early = MDocIssuer(
            documentSignerKey: world.issuer.documentSignerKey, certificateChain: world.issuer.certificateChain,
            clock: FixedClock(signed), random: SeededRandomSource(seed: 11))
        let issued = try early.issue(
            docType: MDL.docType, nameSpaces: TestWorld.mdlClaims, deviceKey: world.deviceKey.publicKey,
            validUntil: TestWorld.now.addingTimeInterval(30 * Self.day))
        let fixture = try await TamperingFixture(world: world, issuerSigned: issued)
        // At TestWorld.now the chain is valid and the MSO window (signed … +30 d) holds the instant.
        let outcome = try await fixture.verify(fixture.response)
        #expect(outcome.allErrors == [.msoSignedOutsideCertificateValidity(signed: signed)])
    }

    /// Signed after the DS certificate's notAfter, with a validFrom back-dated so that the MSO
    /// window still holds the verification instant.
    @Test func msoSignedAfterTheDocumentSignerNotAfter() async throws {
        let world = try TestWorld()
        let signed = TestWorld.now.addingTimeInterval(366 * Self.day)
        #expect(signed > world.documentSigner.certificate.notValidAfter)
        let late = MDocIssuer(
            documentSignerKey: world.issuer.documentSignerKey, certificateChain: world.issuer.certificateChain,
            clock: FixedClock(signed), random: SeededRandomSource(seed: 12))
        let issued = try late.issue(
            docType: MDL.docType, nameSpaces: TestWorld.mdlClaims, deviceKey: world.deviceKey.publicKey,
            validFrom: TestWorld.now, validUntil: TestWorld.now.addingTimeInterval(400 * Self.day))
        let fixture = try await TamperingFixture(world: world, issuerSigned: issued)
        let instant = TestWorld.now.addingTimeInterval(Self.day)
        let outcome = try await fixture.verify(fixture.response, at: instant)
        #expect(outcome.allErrors == [.msoSignedOutsideCertificateValidity(signed: signed)])
    }

    // MARK: 12. Device signature

    @Test func deviceSignatureCheckedAgainstAnotherSessionTranscript() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let (otherTranscript, _) = try fixture.world.transcript()
        #expect(otherTranscript.bytes != fixture.transcript.bytes)
        let outcome = try await fixture.verify(fixture.response, transcript: otherTranscript)
        #expect(outcome.allErrors == [.deviceSignatureInvalid(docType: MDL.docType)])
    }

    @Test func deviceSignatureByAnotherKeyThanTheMSOs() async throws {
        let world = try TestWorld()
        let stranger = SoftwareDeviceKey(try P256.Signing.PrivateKey(rawRepresentation: SeededRandomSource(seed: 7).bytes(32)))
        #expect(stranger.publicKey != world.deviceKey.publicKey)
        let fixture = try await TamperingFixture(world: world, deviceKey: stranger)
        let outcome = try await fixture.verify(fixture.response)
        #expect(outcome.allErrors == [.deviceSignatureInvalid(docType: MDL.docType)])
    }

    @Test func deviceSignatureBitFlipped() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let tampered = try fixture.response.tamperingDocument { document in
            guard case .deviceSignature(let signature) = document.deviceSigned.deviceAuth else {
                Issue.record("expected DeviceSignature")
                return
            }
            document.deviceSigned.deviceAuth = .deviceSignature(try signature.flippingSignatureBit(byte: 40, mask: 0x80))
        }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.deviceSignatureInvalid(docType: MDL.docType)])
    }

    // MARK: 13. DeviceMac

    @Test func deviceMacCheckedWithAnotherReaderKey() async throws {
        let fixture = try await TamperingFixture(world: TestWorld(), mac: true)
        let otherReader = try EphemeralPrivateKey.generate(random: SeededRandomSource(seed: 99))
        let outcome = try await fixture.verify(fixture.response, readerKey: otherReader)
        #expect(outcome.allErrors == [.deviceMacInvalid(docType: MDL.docType)])
    }

    @Test func deviceMacCheckedAgainstAnotherSessionTranscript() async throws {
        let fixture = try await TamperingFixture(world: TestWorld(), mac: true)
        let (otherTranscript, _) = try fixture.world.transcript()
        let outcome = try await fixture.verify(fixture.response, transcript: otherTranscript, readerKey: fixture.readerKey)
        #expect(outcome.allErrors == [.deviceMacInvalid(docType: MDL.docType)])
    }

    @Test func deviceMacWithoutTheReaderKey() async throws {
        let fixture = try await TamperingFixture(world: TestWorld(), mac: true)
        let outcome = try await fixture.verify(fixture.response, readerKey: nil)
        #expect(outcome.allErrors == [.deviceMacKeyUnavailable(docType: MDL.docType)])
    }

    // MARK: 14. Device-signed elements and keyAuthorizations

    /// What the MSO's keyAuthorizations say about the device-signed `age_over_65`.
    enum Authorization: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case absent, otherElement, otherNamespace, element, namespace

        var keyAuthorizations: KeyAuthorizations? {
            switch self {
            case .absent: return nil
            case .otherElement: return KeyAuthorizations(dataElements: [MDL.namespace: ["age_over_21"]])
            case .otherNamespace: return KeyAuthorizations(nameSpaces: ["org.iso.18013.5.1.aamva"])
            case .element: return KeyAuthorizations(dataElements: [MDL.namespace: ["age_over_65"]])
            case .namespace: return KeyAuthorizations(nameSpaces: [MDL.namespace])
            }
        }

        var allowsAgeOver65: Bool { self == .element || self == .namespace }
        var testDescription: String { rawValue }
    }

    @Test(arguments: Authorization.allCases) func deviceSignedElement(_ authorization: Authorization) async throws {
        let world = try TestWorld()
        let fixture = try await TamperingFixture(
            world: world, issuerSigned: try world.issueMDL(keyAuthorizations: authorization.keyAuthorizations))
        let deviceSigned = try await DeviceSigning.signed(
            [MDL.namespace: ["age_over_65": false]], transcript: fixture.transcript, key: world.deviceKey)
        let tampered = try fixture.response.tamperingDocument { $0.deviceSigned = deviceSigned }
        // The request also asks for age_over_65, which only the device-signed part carries.
        let request = try TestWorld.request(TamperingFixture.requestedElements + ["age_over_65"])
        let outcome = try await fixture.verify(tampered, request: request)
        let document = try #require(outcome.documents.first)
        if authorization.allowsAgeOver65 {
            #expect(outcome.allErrors == [])
            #expect(document.deviceSignedElements == [MDL.namespace: ["age_over_65": false]])
        } else {
            // Unauthorized but present: not "missing", and not handed out.
            #expect(outcome.allErrors == [.deviceElementNotAuthorized(namespace: MDL.namespace, element: "age_over_65")])
            #expect(document.deviceSignedElements == [:])
        }
    }

    /// Every unauthorized device-signed element is listed, across namespaces, in a stable order
    /// (namespaces, then elements, sorted).
    @Test func everyUnauthorizedDeviceSignedElementIsListed() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let deviceSigned = try await DeviceSigning.signed(
            [MDL.namespace: ["age_over_65": false, "age_over_70": false], "org.example.device": ["note": "hi"]],
            transcript: fixture.transcript, key: fixture.world.deviceKey)
        let tampered = try fixture.response.tamperingDocument { $0.deviceSigned = deviceSigned }
        let expected: [MDocError] = [
            .deviceElementNotAuthorized(namespace: "org.example.device", element: "note"),
            .deviceElementNotAuthorized(namespace: MDL.namespace, element: "age_over_65"),
            .deviceElementNotAuthorized(namespace: MDL.namespace, element: "age_over_70"),
        ]
        for response in [tampered, try DeviceResponse(bytes: tampered.encoded())] {
            let outcome = await fixture.verifier.verify(
                response, request: fixture.request, sessionTranscript: fixture.transcript, at: TestWorld.now)
            #expect(outcome.allErrors == expected)
            #expect(outcome.documents.first?.deviceSignedElements == [:])
        }
    }

    /// An authorized device-signed element whose DeviceSignature does not verify is not handed out.
    @Test func authorizedDeviceSignedElementUnderABadSignature() async throws {
        let world = try TestWorld()
        let fixture = try await TamperingFixture(
            world: world, issuerSigned: try world.issueMDL(keyAuthorizations: KeyAuthorizations(nameSpaces: [MDL.namespace])))
        let (otherTranscript, _) = try world.transcript()
        let deviceSigned = try await DeviceSigning.signed(
            [MDL.namespace: ["age_over_65": false]], transcript: otherTranscript, key: world.deviceKey)
        let tampered = try fixture.response.tamperingDocument { $0.deviceSigned = deviceSigned }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.deviceSignatureInvalid(docType: MDL.docType)])
        #expect(outcome.documents.first?.deviceSignedElements == [:])
    }

    /// Device-signed values in the mDL namespace are held to their CDDL type like issuer-signed
    /// ones; a wrongly typed one is reported and not handed out.
    @Test func deviceSignedElementOfTheWrongType() async throws {
        let world = try TestWorld()
        let fixture = try await TamperingFixture(
            world: world, issuerSigned: try world.issueMDL(keyAuthorizations: KeyAuthorizations(nameSpaces: [MDL.namespace])))
        let deviceSigned = try await DeviceSigning.signed(
            [MDL.namespace: ["age_over_65": "no"]], transcript: fixture.transcript, key: world.deviceKey)
        let tampered = try fixture.response.tamperingDocument { $0.deviceSigned = deviceSigned }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.invalidElementValue(namespace: MDL.namespace, element: "age_over_65", expected: "bool")])
        #expect(outcome.documents.first?.deviceSignedElements == [:])
    }

    // MARK: 15. Completeness

    @Test func requestedElementStripped() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let tampered = try fixture.response.tamperingDocument { try $0.removeItem("birth_date") }
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.requestedElementMissing(namespace: MDL.namespace, element: "birth_date")])
        #expect(outcome.isAuthentic)
        #expect(!outcome.isValid)
    }

    @Test func requestedDocumentMissingWithoutDocumentErrors() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        var tampered = fixture.response
        tampered.documents = nil
        #expect(tampered.documentErrors == nil)
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.requestedDocumentMissing(docType: MDL.docType)])
        #expect(outcome.documents.isEmpty)
    }

    @Test func requestedDocumentReportedInDocumentErrors() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        var tampered = fixture.response
        tampered.documents = nil
        tampered.documentErrors = [[MDL.docType: DeviceResponseGenerator.dataNotReturned]]
        let outcome = try await fixture.verify(tampered)
        // Reported by the holder, so not also "missing".
        #expect(outcome.allErrors == [.documentError(docType: MDL.docType, code: 0)])
    }

    @Test func responseStatusNotOK() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        var tampered = fixture.response
        tampered.status = DeviceResponse.Status.generalError.rawValue
        let outcome = try await fixture.verify(tampered)
        #expect(outcome.allErrors == [.invalidStructure(structure: "DeviceResponse", reason: "status 10")])
    }

    // MARK: 16. Element value of the wrong CDDL type

    static let wronglyTyped: [(element: String, value: CBOR, expected: String)] = [
        ("age_over_18", "yes", "bool"),
        ("birth_date", "1990-05-17", "full-date"),  // untagged: not tag 1004
        ("family_name", 42, "tstr"),
        ("given_name", .bytes(Data("Jane".utf8)), "tstr"),
    ]

    @Test(arguments: wronglyTyped) func issuerRefusesWronglyTypedElement(element: String, value: CBOR, expected: String)
        throws
    {
        let world = try TestWorld()
        var claims = TestWorld.mdlClaims
        claims[MDL.namespace]?[element] = value
        #expect(throws: MDocError.invalidElementValue(namespace: MDL.namespace, element: element, expected: expected)) {
            try world.issuer.issue(
                docType: MDL.docType, nameSpaces: claims, deviceKey: world.deviceKey.publicKey,
                validUntil: TestWorld.now.addingTimeInterval(Self.day))
        }
    }

    @Test(arguments: wronglyTyped) func verifierReportsWronglyTypedElement(element: String, value: CBOR, expected: String)
        async throws
    {
        let world = try TestWorld()
        // Control: the hand issuer with the right types is accepted.
        let good = try await TamperingFixture(world: world, issuerSigned: HandIssuer.issue(world: world, elements: TestWorld.mdlClaims))
        #expect(try await good.verify(good.response).allErrors == [])

        var claims = TestWorld.mdlClaims
        claims[MDL.namespace]?[element] = value
        let fixture = try await TamperingFixture(world: world, issuerSigned: HandIssuer.issue(world: world, elements: claims))
        let outcome = try await fixture.verify(fixture.response)
        #expect(outcome.allErrors == [.invalidElementValue(namespace: MDL.namespace, element: element, expected: expected)])
    }

    // MARK: 17. Several at once

    @Test func severalTamperingsAreAllReported() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        var tampered = try fixture.response.tamperingDocument { document in
            document.issuerSigned.issuerAuth = try document.issuerSigned.issuerAuth.flippingSignatureBit()
            var forged = try document.item("family_name").value
            forged.elementValue = "Roe"
            try document.replaceItem("family_name", with: try forged.encodedItem())
            try document.removeItem("birth_date")
        }
        tampered.documentErrors = [[Self.other: 0]]
        let (otherTranscript, _) = try fixture.world.transcript()
        // 31 days on: the MSO (30 days) has expired, the DS certificate has not.
        let later = TestWorld.now.addingTimeInterval(31 * Self.day)
        let outcome = try await fixture.verify(tampered, transcript: otherTranscript, at: later)
        #expect(outcome.allErrors == [
            .documentError(docType: Self.other, code: 0),
            .issuerSignatureInvalid(docType: MDL.docType),
            .msoExpired(validUntil: TestWorld.now.addingTimeInterval(30 * Self.day), at: later),
            .digestMismatch(namespace: MDL.namespace, element: "family_name"),
            .deviceSignatureInvalid(docType: MDL.docType),
            .requestedElementMissing(namespace: MDL.namespace, element: "birth_date"),
        ])
    }

    // MARK: Wire form

    /// The tampered bytes survive encoding and decoding unchanged, and the decoded response
    /// reports the same errors as the value it was encoded from.
    @Test func tamperedResponseSurvivesTheWire() async throws {
        let fixture = try await TamperingFixture(world: TestWorld())
        let tampered = try fixture.response.tamperingDocument { document in
            document.issuerSigned.issuerAuth = try document.issuerSigned.issuerAuth.flippingSignatureBit()
            let original = try document.item("family_name")
            try document.replaceItem(
                "family_name",
                with: try EncodedCBOR<IssuerSignedItem>(bytes: ReEncoding.keysReversed.apply(to: original.bytes)))
        }
        let bytes = try tampered.encoded()
        #expect(bytes != (try fixture.response.encoded()))
        let decoded = try DeviceResponse(bytes: bytes)
        #expect(decoded == tampered)
        let expected: [MDocError] = [
            .issuerSignatureInvalid(docType: MDL.docType), .digestMismatch(namespace: MDL.namespace, element: "family_name"),
        ]
        let fromWire = await fixture.verifier.verify(
            decoded, request: fixture.request, sessionTranscript: fixture.transcript, at: TestWorld.now)
        #expect(fromWire.allErrors == expected)
        #expect(try await fixture.verify(tampered).allErrors == expected)
    }
}
