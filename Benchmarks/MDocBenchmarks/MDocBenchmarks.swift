// ISO 18013-5 holder and reader benchmarks on the Annex D vectors (package-benchmark), each next to
// the floor made of its primitive operations on the same bytes, measured in the same run.
//
//   cd Benchmarks && swift package benchmark --target MDocBenchmarks
//
// holder AnnexD: decrypt the SessionEstablishment (ECDH, HKDF ×2, AES-GCM), parse the DeviceRequest,
//   build the DeviceResponse for the Annex D credential with a DeviceSignature (ES256 with SDeviceKey),
//   encrypt it (AES-GCM).
// holder floor: EReaderKey import + ECDH + SHA-256(SessionTranscriptBytes) + HKDF ×2 + AES-GCM open of the request +
//   ECDSA sign of the DeviceAuthentication Sig_structure + AES-GCM seal of the response.
// reader AnnexD: decrypt the SessionData and fully verify it at 2021-01-01 (chain to the IACA,
//   issuerAuth, six element digests, validity, DeviceMac), the DS chain answered by the verifier's chain cache as
//   in a reader's steady state. "(cold: no chain cache)": the chain parsed and validated every time.
// reader floor: EDeviceKey import + ECDH + SHA-256(SessionTranscriptBytes) + HKDF ×2 + AES-GCM open of the response +
//   ECDSA verify ×2 (DS certificate, issuerAuth) + SHA-256 of the six IssuerSignedItemBytes +
//   SDeviceKey import (from the MSO) + ECDH + HKDF (EMacKey) + HMAC-SHA-256 of DeviceAuthentication.
// pairs: X / Y: what scripts/bench reports: X and Y run in turns inside one benchmark (BenchmarkSupport's
//   InterleavedPairs), a block of each per pair, and each pair's ratio recorded, so that both sides of a ratio see the
//   same machine. The rows above, each alone, remain for package-benchmark's own figures (mallocs, percentiles).
// TESSERA_BENCH_SHORT=1 runs fewer pairs (CI).

import Benchmark
import BenchmarkSupport
import Crypto
import Foundation
import MDoc
import TesseraCBOR
import TesseraCOSE
import TesseraTrust
import X509

private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

private let vectors: [String: String] = {
    let url = repositoryRoot.appendingPathComponent("Tests/MDocTests/Fixtures/iso18013-5-annex-d.json")
    guard let data = try? Data(contentsOf: url),
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let v = json["vectors"] as? [String: String]
    else { fatalError("MDocBenchmarks: cannot read \(url.path)") }
    return v
}()

private func bytes(_ name: String) -> Data {
    guard let hex = vectors[name] else { fatalError("MDocBenchmarks: no vector \(name)") }
    var out = Data(capacity: hex.count / 2)
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        guard let b = UInt8(hex[index..<next], radix: 16) else { fatalError("MDocBenchmarks: bad hex in \(name)") }
        out.append(b)
        index = next
    }
    return out
}

private func must<T>(_ label: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { fatalError("MDocBenchmarks: \(label): \(error)") }
}

private let validationTime = Date(timeIntervalSince1970: 1_609_459_200)  // 2021-01-01T00:00:00Z
private let short = ProcessInfo.processInfo.environment["TESSERA_BENCH_SHORT"] == "1"

let benchmarks: @Sendable () -> Void = {
    // 1,000 operations per sample (figures are per operation): a sample of one left the async flows at the mercy of
    // which core and how cold a cache the harness's task started on (p50 moved by a third between runs).
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .kilo,
        maxDuration: .seconds(8), maxIterations: 5_000)

    let transcript = must("transcript") { try SessionTranscript(taggedBytes: bytes("SessionTranscriptBytes")) }
    let establishmentBytes = bytes("SessionEstablishment")
    let sessionDataBytes = bytes("SessionData")
    let responseBytes = bytes("DeviceResponse")
    let eDeviceKey = must("eDeviceKey") { try P256.KeyAgreement.PrivateKey(rawRepresentation: bytes("eDeviceKey_d")) }
    let eReaderKey = must("eReaderKey") { try P256.KeyAgreement.PrivateKey(rawRepresentation: bytes("eReaderKey_d")) }
    let sDeviceKey = must("SDeviceKey") { try P256.Signing.PrivateKey(rawRepresentation: bytes("SDeviceKey_d")) }
    let response = must("DeviceResponse") { try DeviceResponse(bytes: responseBytes) }
    let issuerSigned = must("IssuerSigned") {
        guard let document = response.documents?.first else { throw MDocError.requestedDocumentMissing(docType: "mDL") }
        return document.issuerSigned
    }
    let credential = StoredCredential(docType: MDL.docType, issuerSigned: issuerSigned, deviceKey: SoftwareDeviceKey(sDeviceKey))
    let anchors = must("IACA") { try TrustAnchors(derCertificates: [bytes("IACARootCertificate")]) }
    let verifier = MDocVerifier(trustAnchors: anchors)
    let coldVerifier = MDocVerifier(trustAnchors: anchors, chainCache: nil)
    let engagement = must("engagement") { try DeviceEngagement(bytes: transcript.deviceEngagementBytes ?? Data()) }
    let eDeviceCOSEKey = must("EDeviceKey") { try engagement.security.eDeviceKey() }

    // MARK: Holder

    @Sendable func holder() async throws {
        let establishment = try SessionEstablishment(bytes: establishmentBytes)
        let session = try SessionEncryption(
            role: .mdoc, privateKey: .p256(eDeviceKey), peerPublicKey: COSEKey(cbor: establishment.eReaderKey.value),
            sessionTranscript: transcript)
        let request = try DeviceRequest(bytes: session.decrypt(establishment.data))
        let generated = try await DeviceResponseGenerator.generate(
            request: request, credentials: [credential],
            selection: DeviceResponseGenerator.selectAll(request: request, credentials: [credential]),
            sessionTranscript: transcript)
        blackHole(try SessionData(data: session.encrypt(generated.encoded())).encoded())
    }
    Benchmark("holder AnnexD", configuration: configuration) { benchmark in
        // Timed inside the task: an async benchmark runs in a Task the harness waits for with a semaphore, and that
        // hand-over between threads is the harness's cost, not the flow's (the synchronous floor never pays it).
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { try await holder() }
        benchmark.stopMeasurement()
    }

    // The floor's inputs: the same bytes the holder run handles.
    let requestCiphertext = must("request") { try SessionEstablishment(bytes: establishmentBytes).data }
    // The point as it arrives (a parsed COSEKey would hand over the key its own check already imported).
    let eReaderPoint = must("EReaderKey") {
        try P256.KeyAgreement.PublicKey(coseKey: COSEKey(cbor: SessionEstablishment(bytes: establishmentBytes).eReaderKey.value))
            .x963Representation
    }
    let deviceAuthentication = DeviceAuthentication.bytes(
        sessionTranscript: transcript, docType: MDL.docType, deviceNameSpacesBytes: Data([0xa0]))
    let sigStructure = COSEToBeSigned.signature1(bodyProtected: Data([0xa1, 0x01, 0x26]), externalAAD: Data(), payload: deviceAuthentication)
    let responsePlaintext = responseBytes

    @Sendable func holderFloor() throws {
        // The reader's key arrives with the request: imported and checked on the curve every time, as the
        // reader floor does with EDeviceKey.
        let readerPublic = try P256.KeyAgreement.PublicKey(x963Representation: eReaderPoint)
        let shared = try eDeviceKey.sharedSecretFromKeyAgreement(with: readerPublic)
        let salt = Data(SHA256.hash(data: transcript.taggedBytes))
        let skReader = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("SKReader".utf8), outputByteCount: 32)
        let skDevice = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("SKDevice".utf8), outputByteCount: 32)
        let box = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: Data([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
            ciphertext: requestCiphertext.dropLast(16), tag: requestCiphertext.suffix(16))
        blackHole(try AES.GCM.open(box, using: skReader))
        blackHole(try sDeviceKey.signature(for: sigStructure).rawRepresentation)
        blackHole(try AES.GCM.seal(responsePlaintext, using: skDevice, nonce: AES.GCM.Nonce(data: Data([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]))))
    }
    Benchmark("holder floor", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { try holderFloor() }
    }

    // MARK: Reader

    let readerCOSEKey = EphemeralPrivateKey.p256(eReaderKey)
    let request = must("request") { try DeviceRequest(bytes: bytes("DeviceRequest")) }
    // Steady state: the verifier's DS chain cache holds the Annex D chain after the first iteration. Cold: every
    // presentation parses and validates the chain (what a reader pays for a DS certificate it has not seen).
    @Sendable func read(with reader: MDocVerifier) async throws {
        let session = try SessionEncryption(
            role: .mdocReader, privateKey: readerCOSEKey, peerPublicKey: eDeviceCOSEKey, sessionTranscript: transcript)
        let sessionData = try SessionData(bytes: sessionDataBytes)
        let received = try DeviceResponse(bytes: session.decrypt(sessionData.data ?? Data()))
        let outcome = await reader.verify(
            received, request: request, sessionTranscript: transcript, at: validationTime, readerEphemeralKey: readerCOSEKey)
        guard outcome.isValid else { fatalError("MDocBenchmarks: Annex D does not verify: \(outcome.allErrors)") }
        blackHole(outcome)
    }
    for (name, reader) in [("reader AnnexD", verifier), ("reader AnnexD (cold: no chain cache)", coldVerifier)] {
        Benchmark(name, configuration: configuration) { benchmark in
            // Timed inside the task: an async benchmark runs in a Task the harness waits for with a semaphore, and
            // that hand-over between threads is the harness's cost, not the flow's (the synchronous floor never pays it).
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { try await read(with: reader) }
            benchmark.stopMeasurement()
        }
    }

    let dsCertificate = must("DS") { try Certificate(derEncoded: Array(bytes("DocumentSignerCertificate"))) }
    let iacaCertificate = must("IACA") { try Certificate(derEncoded: Array(bytes("IACARootCertificate"))) }
    let dsKey = must("DS key") {
        guard let k = P256.Signing.PublicKey(dsCertificate.publicKey) else { throw MDocError.invalidEphemeralKey("DS") }
        return k
    }
    let issuerAuth = issuerSigned.issuerAuth
    let issuerToBeSigned = must("issuerAuth") { try issuerAuth.toBeSigned() }
    let issuerSignature = must("issuerAuth signature") { try P256.Signing.ECDSASignature(rawRepresentation: issuerAuth.signature) }
    let items = (issuerSigned.nameSpaces ?? [:]).values.flatMap { $0 }.map { CBOR.encodeTag24($0.bytes) }
    let sessionCiphertext = must("SessionData") { try SessionData(bytes: sessionDataBytes).data ?? Data() }
    // SDeviceKey as the MSO carries it (x ‖ y): imported per run like EDeviceKey, since the reader receives it.
    let staticDevicePoint = sDeviceKey.publicKey.x963Representation
    let macPayload = deviceAuthentication
    let macStructure = COSEToBeSigned.mac0(protected: Data([0xa1, 0x01, 0x05]), externalAAD: Data(), payload: macPayload)
    let devicePointForECDH = must("EDeviceKey point") { try P256.KeyAgreement.PublicKey(coseKey: eDeviceCOSEKey).x963Representation }

    @Sendable func readerFloor() throws {
        let devicePublic = try P256.KeyAgreement.PublicKey(x963Representation: devicePointForECDH)
        let shared = try eReaderKey.sharedSecretFromKeyAgreement(with: devicePublic)
        let salt = Data(SHA256.hash(data: transcript.taggedBytes))
        blackHole(shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("SKReader".utf8), outputByteCount: 32))
        let skDevice = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("SKDevice".utf8), outputByteCount: 32)
        let box = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: Data([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1])),
            ciphertext: sessionCiphertext.dropLast(16), tag: sessionCiphertext.suffix(16))
        blackHole(try AES.GCM.open(box, using: skDevice))
        blackHole(iacaCertificate.publicKey.isValidSignature(dsCertificate.signature, for: dsCertificate))
        blackHole(dsKey.isValidSignature(issuerSignature, for: issuerToBeSigned))
        for item in items { blackHole(SHA256.hash(data: item)) }
        let staticDevicePublic = try P256.KeyAgreement.PublicKey(x963Representation: staticDevicePoint)
        let macShared = try eReaderKey.sharedSecretFromKeyAgreement(with: staticDevicePublic)
        let emac = macShared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("EMacKey".utf8), outputByteCount: 32)
        blackHole(HMAC<SHA256>.authenticationCode(for: macStructure, using: emac))
    }
    Benchmark("reader floor", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { try readerFloor() }
    }

    // MARK: Pairs (scripts/bench)

    // A block is 100 ms of either side (several hundred operations), short enough that both blocks of a pair see the
    // same load, long enough to span many scheduler time slices. The figure is the block's process CPU time per
    // operation: what the rows above measure as wall time on an idle machine, and what a busy one barely moves.
    let block = Duration.milliseconds(100)
    let pairs = InterleavedPairs(.cost)
    let pairConfiguration = pairs.configuration(pairs: short ? 21 : 51)
    Benchmark("pairs: holder AnnexD / holder floor", configuration: pairConfiguration) { benchmark in
        try await pairs.pair(
            benchmark, flow: { try await processCPUNanoseconds(perOperationFor: block) { try await holder() } },
            floor: { try await processCPUNanoseconds(perOperationFor: block) { try holderFloor() } })
    }
    for (name, reader) in [("reader AnnexD", verifier), ("reader AnnexD cold", coldVerifier)] {
        Benchmark("pairs: \(name) / reader floor", configuration: pairConfiguration) { benchmark in
            try await pairs.pair(
                benchmark, flow: { try await processCPUNanoseconds(perOperationFor: block) { try await read(with: reader) } },
                floor: { try await processCPUNanoseconds(perOperationFor: block) { try readerFloor() } })
        }
    }
}
