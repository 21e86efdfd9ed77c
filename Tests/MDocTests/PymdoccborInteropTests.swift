import Crypto
import Foundation
import Testing
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraTrust
@testable import MDoc
import TesseraTrustTesting

/// Interop with pymdoccbor 1.4.0 (PyPI, IdentityPython/pyMDOC-CBOR), both ways, through
/// Fixtures/pymdoccbor_peer.py (JSON on stdin, hex or a JSON verdict on stdout).
///
/// What pymdoccbor 1.4.0 does, learned from its source:
/// - `MdocCborIssuer.new` takes an external signing key and certificate chain (`x509_chain`), signs
///   the MSO with ES256 and returns `{version, documents: [{docType, issuerSigned}], status}`: no
///   DeviceSigned, so it is not a DeviceResponse Tessera (or any reader) accepts as such. Its
///   validFrom and signed are the wall clock, whatever issuance date it is given.
/// - `MdocCbor.verify(trusted_root_certs)` checks the issuerAuth signature with the x5chain leaf,
///   optionally that a trusted root signed the leaf and that the leaf is valid at the wall clock,
///   and every IssuerSignedItem digest — always with SHA-256, whatever the MSO's digestAlgorithm.
///   It checks neither the MSO validity window, nor docType, nor DeviceSigned.
///
/// pymdoccbor checks its certificates against the wall clock, so these tests use a PKI made at
/// `Date()`, not `TestWorld`'s pinned instant. The Python peer runs from `TESSERA_PYTHON` or
/// `<package root>/.build/pyenv/bin/python3` (set up by scripts/test); without it the tests fail.
@Suite("pymdoccbor interop")
struct PymdoccborInteropTests {
    // MARK: - The peer

    static func python() -> String? { PythonPeer.interpreter }

    /// Runs `pymdoccbor_peer.py <command>` with `request` as JSON on stdin and returns its stdout;
    /// records a failure (never a skip) when Python or pymdoccbor is missing or the peer fails.
    func peer(_ command: String, _ request: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws
        -> Data?
    {
        guard let python = Self.python() else {
            Issue.record("\(PythonPeer.missingMessage)", sourceLocation: sourceLocation)
            return nil
        }
        let script = try #require(
            Bundle.module.url(forResource: "pymdoccbor_peer", withExtension: "py", subdirectory: "Fixtures"),
            sourceLocation: sourceLocation)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, command]
        let input = Pipe()
        let out = Pipe()
        let err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // The peer reads all of stdin before it writes anything.
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let what = process.terminationStatus == 2 ? "pymdoccbor peer unusable" : "pymdoccbor peer failed"
            Issue.record("\(what) (exit \(process.terminationStatus)): \(stderr)", sourceLocation: sourceLocation)
            return nil
        }
        return stdout
    }

    /// `issue`: pymdoccbor's output, decoded from the hex line the peer prints.
    func pymdoccborIssue(
        _ world: LiveWorld, claims: [String: [String: CBOR]], expiry: Date, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Data? {
        let request: [String: Any] = [
            "dsKeyPEM": world.documentSigner.privateKeyPEM,
            "dsChainPEM": [try world.documentSigner.certificatePEM()],
            "deviceKey": Hex.encode(world.deviceKey.publicKey.encoded()),
            "docType": MDL.docType,
            "claims": Hex.encode(try CBOREncoder().encode(claims)),
            "issuanceDate": Self.day(world.now),
            "expiryDate": Self.day(expiry),
        ]
        guard let stdout = try peer("issue", request, sourceLocation: sourceLocation) else { return nil }
        let hex = String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(!hex.isEmpty && hex.allSatisfy(\.isHexDigit), "unexpected peer output: \(hex.prefix(200))")
        return Hex.decode(hex)
    }

    /// `verify`: pymdoccbor's verdict on a DeviceResponse; `roots` nil skips its chain check.
    func pymdoccborVerify(
        _ response: DeviceResponse, roots: [IACAIssuer]?, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Verdict? {
        var request: [String: Any] = ["response": Hex.encode(try response.encoded())]
        if let roots { request["rootsPEM"] = try roots.map { try $0.root.certificatePEM() } }
        guard let stdout = try peer("verify", request, sourceLocation: sourceLocation) else { return nil }
        return try JSONDecoder().decode(Verdict.self, from: stdout)
    }

    /// What the peer's `verify` prints.
    struct Verdict: Decodable {
        struct Failure: Decodable, Equatable {
            let namespace: String
            let elementIdentifier: String
            let reason: String
        }
        struct Hashes: Decodable {
            let total: Int
            let verified: Int
            let failed: [Failure]
        }
        struct Document: Decodable {
            let docType: String
            let valid: Bool
            let signatureValid: Bool
            let hashes: Hashes?
        }
        let valid: Bool
        let status: Int?
        let exception: String?
        let documents: [Document]
        /// Documents whose verification raised (chain, certificate or key problems).
        let rejected: Int
        /// Namespace → element identifier → value, as pymdoccbor decoded them (tags stripped).
        let disclosed: [String: [String: JSONValue]]
        /// pymdoccbor's own warnings and errors.
        let log: [String]
    }

    enum JSONValue: Decodable, Equatable {
        case string(String), bool(Bool), number(Double), hex(String), array([JSONValue]), object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let v = try? c.decode(Bool.self) {
                self = .bool(v)
            } else if let v = try? c.decode(Double.self) {
                self = .number(v)
            } else if let v = try? c.decode(String.self) {
                self = .string(v)
            } else if let v = try? c.decode([JSONValue].self) {
                self = .array(v)
            } else {
                let object = try c.decode([String: JSONValue].self)
                if object.count == 1, case .string(let hex)? = object["hex"] { self = .hex(hex) } else { self = .object(object) }
            }
        }
    }

    // MARK: - A PKI and holder at the real current time

    struct LiveWorld {
        let now = Date()
        let iaca: IACAIssuer
        let documentSigner: IssuedCertificate
        let issuer: MDocIssuer
        let deviceKey: SoftwareDeviceKey

        init(seed: UInt64 = 7, digestAlgorithm: DigestAlgorithm = .sha256) throws {
            let random = SeededRandomSource(seed: seed)
            var generator = random.generator
            iaca = try IACAIssuer.create(
                IACARootRequest(
                    country: "US", commonName: "Tessera Live IACA \(seed)", issuerAlternativeName: .rfc822Name("iaca@example.com")),
                now: now.addingTimeInterval(-86_400), random: &generator)
            documentSigner = try iaca.issueDocumentSigner(
                DocumentSignerRequest(commonName: "Tessera Live DS"), now: now.addingTimeInterval(-3_600), random: &generator)
            guard case .p256(let dsKey) = documentSigner.privateKey else { throw MDocError.deviceKeyFailure("not P-256") }
            var issuer = MDocIssuer(
                documentSignerKey: .p256(dsKey), certificateChain: [try documentSigner.derEncoded()], clock: FixedClock(now),
                random: random)
            issuer.digestAlgorithm = digestAlgorithm
            self.issuer = issuer
            deviceKey = SoftwareDeviceKey(try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32)))
        }

        var documentSignerKey: COSEVerificationKey {
            get throws {
                guard case .p256(let key) = documentSigner.privateKey else { throw MDocError.deviceKeyFailure("not P-256") }
                return .p256(key.publicKey)
            }
        }

        /// Presents `issuerSigned` with `deviceKey` (or the world's) for every element it holds.
        func present(
            _ issuerSigned: IssuerSigned, deviceKey: SoftwareDeviceKey? = nil, transcript: SessionTranscript
        ) async throws -> (DeviceRequest, DeviceResponse) {
            var nameSpaces: [String: [String: Bool]] = [:]
            for (ns, items) in issuerSigned.nameSpaces ?? [:] {
                nameSpaces[ns] = Dictionary(uniqueKeysWithValues: items.map { ($0.value.elementIdentifier, false) })
            }
            let items = ItemsRequest(docType: MDL.docType, nameSpaces: nameSpaces)
            let request = DeviceRequest(docRequests: [DocRequest(itemsRequest: try EncodedCBOR(encoding: items))])
            let credential = StoredCredential(
                docType: MDL.docType, issuerSigned: issuerSigned, deviceKey: deviceKey ?? self.deviceKey)
            let response = try await DeviceResponseGenerator.generate(
                request: request, credentials: [credential],
                selection: DeviceResponseGenerator.selectAll(request: request, credentials: [credential]),
                sessionTranscript: transcript)
            return (request, try DeviceResponse(bytes: response.encoded()))
        }
    }

    static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// The claims with their full-date tags removed: pymdoccbor adds tag 1004 itself to
    /// birth_date, issue_date and expiry_date (also inside driving_privileges).
    static func untagged(_ value: CBOR) -> CBOR {
        switch value {
        case .tagged(CBORTag.fullDate, let content): return content
        case .array(let items): return .array(items.map(untagged))
        case .map(let map): return .map(CBORMap(map.map { CBORMap.Entry(key: $0.key, value: untagged($0.value)) }))
        default: return value
        }
    }

    // MARK: - pymdoccbor issues, Tessera verifies

    @Test("pymdoccbor issues with Tessera's document signer, Tessera verifies")
    func pymdoccborIssuesTesseraVerifies() async throws {
        let world = try LiveWorld()
        let claims = TestWorld.mdlClaims.mapValues { $0.mapValues(Self.untagged) }
        let expiry = world.now.addingTimeInterval(30 * 86_400)
        let before = Date()
        let bytes = try #require(try pymdoccborIssue(world, claims: claims, expiry: expiry))
        let after = Date()

        // What pymdoccbor produces: a DeviceResponse-shaped map without DeviceSigned, which a
        // reader must reject as a DeviceResponse (§8.3.2.1.2.2: deviceSigned is mandatory).
        let top = try CBOR.decode(bytes)
        #expect(top["version"] == "1.0")
        #expect(top["status"] == 0)
        let documents = try #require(top["documents"]?.arrayValue)
        try #require(documents.count == 1)
        #expect(documents[0]["docType"] == .text(MDL.docType))
        #expect(documents[0]["deviceSigned"] == nil)
        let notAResponse = #expect(throws: MDocError.self) { try DeviceResponse(bytes: bytes) }
        #expect(notAResponse.map { "\($0)".contains("deviceSigned") } == true, "\(String(describing: notAResponse))")

        // Its IssuerSigned. Re-encoding the decoded tree keeps every signed or digested byte as
        // received: the items are tag-24 byte strings, the MSO and protected header byte strings.
        let issuerSignedItem = try #require(documents[0]["issuerSigned"])
        let issuerSigned = try IssuerSigned(bytes: issuerSignedItem.encoded())
        let issuerAuth = issuerSigned.issuerAuth
        #expect(try issuerAuth.algorithm() == .es256)
        #expect(issuerAuth.unprotected.x5chain == [try world.documentSigner.derEncoded()])
        #expect(coseError { try issuerAuth.verify(with: world.documentSignerKey) } == nil)

        // The MSO.
        let mso = try issuerSigned.mobileSecurityObject().value
        #expect(mso.version == "1.0")
        #expect(mso.docType == MDL.docType)
        #expect(mso.digestAlgorithm == DigestAlgorithm.sha256.rawValue)
        #expect(mso.deviceKeyInfo.deviceKey.encoded() == world.deviceKey.publicKey.encoded())
        let validity = mso.validityInfo
        // pymdoccbor signs at the wall clock (whole seconds); validFrom is the later of that and the issuance date.
        #expect(validity.validFrom == validity.signed)
        #expect(validity.signed.date >= before.addingTimeInterval(-1) && validity.signed.date <= after)
        let endOfExpiryDay = try #require(ISO8601DateFormatter().date(from: Self.day(expiry) + "T23:59:59Z"))
        #expect(validity.validUntil.date == endOfExpiryDay)
        #expect(validity.expectedUpdate == nil)

        // Every item's digest over its IssuerSignedItemBytes as received, and the values.
        var received: [String: [String: CBOR]] = [:]
        var digestIDs: [Int] = []
        for (namespace, items) in issuerSigned.nameSpaces ?? [:] {
            for item in items {
                let id = try #require(Int(exactly: item.value.digestID))
                digestIDs.append(id)
                let expected = try #require(mso.valueDigests[namespace]?[id], "no digest for \(namespace)/\(id)")
                let actual = DigestAlgorithm.sha256.digest(CBOR.encodeTag24(item.bytes))
                #expect(actual == expected, "\(item.value.elementIdentifier)")
                #expect(item.value.random.count == 32)
                received[namespace, default: [:]][item.value.elementIdentifier] = item.value.elementValue
            }
        }
        #expect(received == TestWorld.mdlClaims)  // pymdoccbor restored the full-date tags
        #expect(Set(digestIDs).count == digestIDs.count)
        #expect(mso.valueDigests.mapValues(\.count) == TestWorld.mdlClaims.mapValues(\.count))

        // The full reader check. pymdoccbor makes no DeviceSigned, so Tessera's holder presents the
        // credential with the device key pymdoccbor bound into the MSO: nothing fails.
        let (transcript, _) = try TestWorld().transcript()
        let (request, response) = try await world.present(issuerSigned, transcript: transcript)
        let verifier = MDocVerifier(trustAnchors: world.iaca.trustAnchors)
        let outcome = await verifier.verify(response, request: request, sessionTranscript: transcript, at: Date())
        #expect(outcome.allErrors == [])
        #expect(outcome.documents.first?.issuerSignedElements == TestWorld.mdlClaims)

        // Presented with a key other than the MSO's: exactly the device signature fails.
        let stranger = SoftwareDeviceKey(P256.Signing.PrivateKey())
        let (_, forged) = try await world.present(issuerSigned, deviceKey: stranger, transcript: transcript)
        let rejected = await verifier.verify(forged, request: request, sessionTranscript: transcript, at: Date())
        #expect(rejected.allErrors == [.deviceSignatureInvalid(docType: MDL.docType)])
    }

    // MARK: - Tessera issues, pymdoccbor verifies

    @Test("Tessera issues and presents, pymdoccbor verifies (and rejects a tampered element)")
    func tesseraIssuesPymdoccborVerifies() async throws {
        let world = try LiveWorld()
        let issuerSigned = try world.issuer.issue(
            docType: MDL.docType, nameSpaces: TestWorld.mdlClaims, deviceKey: world.deviceKey.publicKey,
            validUntil: world.now.addingTimeInterval(30 * 86_400))
        let (transcript, _) = try TestWorld().transcript()
        let request = try TestWorld.request(["family_name", "birth_date", "portrait", "age_over_18", "driving_privileges"])
        let credential = StoredCredential(docType: MDL.docType, issuerSigned: issuerSigned, deviceKey: world.deviceKey)
        let response = try await DeviceResponseGenerator.generate(
            request: request, credentials: [credential],
            selection: DeviceResponseGenerator.selectAll(request: request, credentials: [credential]),
            sessionTranscript: transcript)

        let verdict = try #require(try pymdoccborVerify(response, roots: [world.iaca]))
        #expect(verdict.valid, "pymdoccbor: \(verdict.log) \(verdict.exception ?? "")")
        #expect(verdict.exception == nil)
        #expect(verdict.status == 0)
        #expect(verdict.rejected == 0)
        #expect(verdict.log == [])
        let document = try #require(verdict.documents.first)
        #expect(verdict.documents.count == 1)
        #expect(document.docType == MDL.docType)
        #expect(document.valid && document.signatureValid)
        #expect(document.hashes?.total == 5)
        #expect(document.hashes?.verified == 5)
        #expect(document.hashes?.failed == [])
        let disclosed = try #require(verdict.disclosed[MDL.namespace])
        #expect(Set(disclosed.keys) == ["family_name", "birth_date", "portrait", "age_over_18", "driving_privileges"])
        #expect(disclosed["family_name"] == .string("Doe"))
        #expect(disclosed["birth_date"] == .string("1990-05-17"))
        #expect(disclosed["portrait"] == .hex("ffd8ffe0"))
        #expect(disclosed["age_over_18"] == .bool(true))
        #expect(
            disclosed["driving_privileges"]
                == .array([.object(["vehicle_category_code": .string("B"), "issue_date": .string("2024-01-01")])]))

        // Not signed by the trusted root: pymdoccbor rejects the document.
        let otherIACA = try LiveWorld(seed: 8).iaca
        let untrusted = try #require(try pymdoccborVerify(response, roots: [otherIACA]))
        #expect(!untrusted.valid)
        #expect(untrusted.rejected == 1)
        #expect(untrusted.log.contains { $0.contains("DS certificate not signed by any trusted root") }, "\(untrusted.log)")

        // One element's IssuerSignedItemBytes changed (same digestID and salt, another value).
        let tampered = try Self.replacing(
            "family_name", with: "Dough", in: response)
        let tamperedVerdict = try #require(try pymdoccborVerify(tampered, roots: [world.iaca]))
        #expect(!tamperedVerdict.valid)
        let tamperedDocument = try #require(tamperedVerdict.documents.first)
        #expect(tamperedDocument.signatureValid)
        #expect(!tamperedDocument.valid)
        #expect(tamperedDocument.hashes?.verified == 4)
        #expect(
            tamperedDocument.hashes?.failed
                == [.init(namespace: MDL.namespace, elementIdentifier: "family_name", reason: "hash mismatch")])
        // Tessera agrees, and finds nothing else.
        let outcome = await MDocVerifier(trustAnchors: world.iaca.trustAnchors).verify(
            tampered, request: request, sessionTranscript: transcript, at: Date())
        #expect(outcome.allErrors == [.digestMismatch(namespace: MDL.namespace, element: "family_name")])
    }

    @Test("What pymdoccbor does not check: MSO validity, DeviceSigned, undigested namespaces, digestAlgorithm")
    func pymdoccborLimits() async throws {
        let world = try LiveWorld()
        let (transcript, _) = try TestWorld().transcript()

        // An expired MSO, presented with a foreign device key, plus an element in a namespace the MSO
        // has no digests for: pymdoccbor accepts all three (the last with only a logged warning) and
        // even discloses the injected element; Tessera reports exactly these three failures.
        let expired = try world.issuer.issue(
            docType: MDL.docType, nameSpaces: TestWorld.mdlClaims, deviceKey: world.deviceKey.publicKey,
            validFrom: world.now.addingTimeInterval(-10 * 86_400), validUntil: world.now.addingTimeInterval(-86_400))
        let stranger = SoftwareDeviceKey(P256.Signing.PrivateKey())
        let (request, presented) = try await world.present(expired, deviceKey: stranger, transcript: transcript)
        let injectedNamespace = "org.example.injected"
        let forged = try Self.editing(presented) { document in
            let item = IssuerSignedItem(
                digestID: 0, random: Data(repeating: 7, count: 32), elementIdentifier: "is_admin", elementValue: true)
            document.issuerSigned.nameSpaces?[injectedNamespace] = [try EncodedCBOR(encoding: item)]
        }
        let verdict = try #require(try pymdoccborVerify(forged, roots: [world.iaca]))
        #expect(verdict.valid, "pymdoccbor now checks validity, DeviceSigned or undigested namespaces: \(verdict.log)")
        let total = TestWorld.mdlClaims.values.map(\.count).reduce(0, +)
        #expect(verdict.documents.first?.hashes?.total == total)  // the injected item is not even counted
        #expect(verdict.documents.first?.hashes?.verified == total)
        #expect(verdict.disclosed[injectedNamespace] == ["is_admin": .bool(true)])
        #expect(verdict.log == ["WARNING: Namespace \(injectedNamespace) not found in MSO valueDigests"])
        let outcome = await MDocVerifier(trustAnchors: world.iaca.trustAnchors).verify(
            forged, request: request, sessionTranscript: transcript, at: Date())
        #expect(Set(outcome.allErrors.map(\.code)) == ["mso_expired", "device_signature_invalid", "digest_missing"])
        #expect(outcome.allErrors.count == 3)
        #expect(outcome.allErrors.contains(.deviceSignatureInvalid(docType: MDL.docType)))
        #expect(outcome.allErrors.contains(.digestMissing(namespace: injectedNamespace, element: "is_admin", digestID: 0)))

        // SHA-384 digests (allowed by §9.1.2.5): pymdoccbor hashes with SHA-256 regardless, so every
        // element fails there, while the signature passes and Tessera verifies the response.
        let sha384World = try LiveWorld(digestAlgorithm: .sha384)
        let sha384 = try sha384World.issuer.issue(
            docType: MDL.docType, nameSpaces: TestWorld.mdlClaims, deviceKey: sha384World.deviceKey.publicKey,
            validUntil: sha384World.now.addingTimeInterval(86_400))
        let (request384, response384) = try await sha384World.present(sha384, transcript: transcript)
        let verdict384 = try #require(try pymdoccborVerify(response384, roots: [sha384World.iaca]))
        #expect(!verdict384.valid)
        let document384 = try #require(verdict384.documents.first)
        #expect(document384.signatureValid)
        #expect(document384.hashes?.verified == 0)
        #expect(document384.hashes.map { $0.failed.allSatisfy { $0.reason == "hash mismatch" } } == true)
        let outcome384 = await MDocVerifier(trustAnchors: sha384World.iaca.trustAnchors).verify(
            response384, request: request384, sessionTranscript: transcript, at: Date())
        #expect(outcome384.allErrors == [])
    }

    /// `response` with its first document changed by `edit`, re-encoded and decoded as a reader would.
    static func editing(_ response: DeviceResponse, _ edit: (inout Document) throws -> Void) throws -> DeviceResponse {
        var response = response
        var document = try #require(response.documents?.first)
        try edit(&document)
        response.documents = [document]
        return try DeviceResponse(bytes: response.encoded())
    }

    /// `response` with the first document's `element` re-encoded with `value` (digestID and salt kept).
    static func replacing(_ element: String, with value: CBOR, in response: DeviceResponse) throws -> DeviceResponse {
        try editing(response) { document in
            var items = try #require(document.issuerSigned.nameSpaces?[MDL.namespace])
            let index = try #require(items.firstIndex { $0.value.elementIdentifier == element })
            var item = items[index].value
            item.elementValue = value
            items[index] = try EncodedCBOR(encoding: item)
            document.issuerSigned.nameSpaces?[MDL.namespace] = items
        }
    }

    func coseError(_ body: () throws -> Void) -> COSEError? {
        do {
            try body()
            return nil
        } catch let error as COSEError {
            return error
        } catch {
            return .invalidKey("\(error)")
        }
    }
}
