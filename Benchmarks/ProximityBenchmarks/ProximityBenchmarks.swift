// ISO 18013-5 proximity presentation end to end over the simulated BLE radio, next to its floor.
//
//   cd Benchmarks && swift package benchmark --target ProximityBenchmarks
//
// presentation MTU n: HolderOrchestrator and VerifierOrchestrator, each with its own BLETransport on one
//   SimulatedAir set to realistic BLE: ATT_MTU n (185, 517), 2 Mbit/s PHY, 7.5 ms connection interval. One
//   iteration = QR engagement → connect → SessionEstablishment (request for 6 mDL elements) → consent →
//   DeviceResponse (DeviceSignature) → verification against the IACA. No ReaderAuth.
// crypto floor: the primitive operations of that presentation on the same sizes — ECDH ×2, SHA-256 of the
//   SessionTranscript ×2, HKDF ×4, AES-GCM seal + open of the request and of the response, ECDSA sign
//   (DeviceSignature), ECDSA verify ×3 (DS certificate, issuerAuth, DeviceSignature), SHA-256 of the 6 items.
// floor: air time MTU n: what the radio cannot avoid: the presentation's bytes on air ÷ 2 Mbit/s, plus one
//   average connection-event wait per message direction (half the 7.5 ms interval each: a message handed to an
//   idle link waits for the next connection event, Bluetooth Core Vol 6 Part B §4.5.1). Its counters print the
//   bytes on air per presentation and the chunk overhead.
// The floor of a presentation is the crypto floor plus that.
// pairs: presentation MTU n / air time + crypto: what scripts/bench reports: presentations and their floor (the air
//   time slept, then the crypto floor once, per presentation) in turns inside one benchmark (BenchmarkSupport's
//   InterleavedPairs), a block of each per pair, each pair's ratio recorded, so that both sides see the same machine.
// TESSERA_BENCH_SHORT=1 runs fewer pairs (CI).

import Benchmark
import BenchmarkSupport
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

private func must<T>(_ label: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { fatalError("ProximityBenchmarks: \(label): \(error)") }
}

private struct OpenGate: PrerequisiteGate {
    func missing(_ required: Set<Capability>) async -> Set<Capability> { [] }
    func resolve(_ capability: Capability) async {}
}

private let now = Date(timeIntervalSince1970: 1_767_225_600)
private let request = VerificationRequest.custom(["family_name", "given_name", "birth_date", "age_over_21", "document_number", "portrait"])

private struct Setup: Sendable {
    let anchors: TrustAnchors
    let credential: StoredCredential

    init() {
        var generator = SystemRandomNumberGenerator()
        let iaca = must("IACA") {
            try IACAIssuer.create(
                IACARootRequest(country: "US", commonName: "Bench IACA", issuerAlternativeName: .rfc822Name("b@example.com")),
                now: now.addingTimeInterval(-86_400), random: &generator)
        }
        let ds = must("DS") { try iaca.issueDocumentSigner(DocumentSignerRequest(commonName: "Bench DS"), now: now.addingTimeInterval(-86_400), random: &generator) }
        guard case .p256(let dsKey) = ds.privateKey else { fatalError("DS key") }
        let deviceKey = SoftwareDeviceKey(P256.Signing.PrivateKey())
        let claims: [String: CBOR] = [
            "family_name": "Doe", "given_name": "Jane", "birth_date": .tagged(CBORTag.fullDate, "1990-05-17"),
            "age_over_21": true, "document_number": "D1234567", "portrait": .bytes(Data(repeating: 0xab, count: 4_000)),
        ]
        let issued = must("issue") {
            try MDocIssuer(
                documentSignerKey: .p256(dsKey), certificateChain: [try ds.derEncoded()], clock: FixedClock(now.addingTimeInterval(-60)),
                random: SystemRandomSource()
            ).issue(docType: MDL.docType, nameSpaces: [MDL.namespace: claims], deviceKey: deviceKey.publicKey, validUntil: now.addingTimeInterval(86_400))
        }
        anchors = iaca.trustAnchors
        credential = StoredCredential(docType: MDL.docType, issuerSigned: issued, deviceKey: deviceKey)
    }
}

/// One presentation; returns the verified response (message sizes) or stops the benchmark.
private func present(_ setup: Setup, air configuration: SimulatedAirConfiguration) async -> VerifiedResponse {
    let air = SimulatedAir(configuration: configuration)
    let (mdoc, reader) = air.makeTransportPair()
    let holder = HolderOrchestrator(gate: OpenGate(), crypto: MDocCryptoService(), bluetooth: mdoc)
    let camera = InProcessCamera()
    let verifier = VerifierOrchestrator(
        gate: OpenGate(), camera: camera, bluetooth: reader, crypto: ReaderCrypto(),
        configuration: .init(trustAnchors: setup.anchors, clock: FixedClock(now)))
    let screens = Task {
        for await state in holder.states {
            if state.phase == .presentingEngagement, let uri = await holder.currentEngagement?.uri { camera.show(uri) }
            if state.phase == .requestReceived, let received = await holder.pendingRequest {
                await holder.userDidConsent(received.allAvailable)
            }
            if state.isTerminal { break }
        }
    }
    do {
        try await holder.startPresentation(setup.credential)
        try await verifier.startVerification(request)
    } catch {
        fatalError("ProximityBenchmarks: start: \(error)")
    }
    let final = await verifier.waitForCompletion()
    await screens.value
    guard case .success(let response) = final else { fatalError("ProximityBenchmarks: presentation \(String(describing: final))") }
    return response
}

/// 2M PHY and the shortest connection interval a phone grants (7.5 ms).
private let bleThroughput = 2_000_000
private let bleConnectionInterval = Duration.microseconds(7_500)

private func realisticBLE(attMTU: Int) -> SimulatedAirConfiguration {
    SimulatedAirConfiguration(attMTU: attMTU, throughput: bleThroughput, connectionInterval: bleConnectionInterval)
}

private let short = ProcessInfo.processInfo.environment["TESSERA_BENCH_SHORT"] == "1"

/// The radio's share of a presentation's floor: its bytes on air (request and response, chunked for `attMTU`) at
/// 2 Mbit/s, plus one average connection-event wait per direction (half an interval each). Returns the bytes too.
private func airFloor(_ setup: Setup, attMTU: Int) async -> (bytesOnAir: Int, sample: VerifiedResponse, time: Duration) {
    let sample = await present(setup, air: SimulatedAirConfiguration(attMTU: attMTU))
    let onAir = must("bytes on air") {
        try TransportStatistics.bytesOnAir(messageLength: sample.requestBytes, attMTU: attMTU)
            + TransportStatistics.bytesOnAir(messageLength: sample.responseBytes, attMTU: attMTU)
    }
    let airNanoseconds = Int64(onAir) * 8 * 1_000_000_000 / Int64(bleThroughput)
    let interval = bleConnectionInterval.components
    let intervalNanoseconds = interval.seconds * 1_000_000_000 + interval.attoseconds / 1_000_000_000
    let waitNanoseconds = 2 * intervalNanoseconds / 2  // two directions, half an interval each
    return (onAir, sample, .nanoseconds(airNanoseconds + waitNanoseconds))
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 2,
        maxDuration: .seconds(10), maxIterations: 200)
    let setup = Setup()

    for attMTU in [185, 517] {
        Benchmark("presentation MTU \(attMTU)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await present(setup, air: realisticBLE(attMTU: attMTU)))
            }
        }
        // The radio's share of the floor: the same presentation's bytes on the same air, no crypto, one message each
        // way, each message waiting on average half a connection interval for its first connection event.
        Benchmark(
            "floor: air time MTU \(attMTU)",
            configuration: .init(
                metrics: [.wallClock, .custom("bytes on air"), .custom("chunk overhead bytes")], timeUnits: .microseconds,
                warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 50)
        ) { benchmark in
            let air = await airFloor(setup, attMTU: attMTU)
            benchmark.measurement(.custom("bytes on air"), air.bytesOnAir)
            benchmark.measurement(.custom("chunk overhead bytes"), air.bytesOnAir - air.sample.requestBytes - air.sample.responseBytes)
            // Timed from here: the sample presentation above (some 2 ms on unthrottled air) is not the floor's. Until
            // issue 29 it was timed with it, and the proximity ratios read some 5 % better than they were.
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                // bytes on air ÷ 2 Mbit/s + two average connection-event waits, as the floor defines it.
                try? await Task.sleep(for: air.time)
            }
        }
    }

    let crypto = CryptoFloor()
    Benchmark("floor: crypto", configuration: .init(metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 10, maxDuration: .seconds(5), maxIterations: 2_000)) { benchmark in
        for _ in benchmark.scaledIterations { crypto.run() }
    }

    // Blocks of 100 ms (three presentations of some 35 ms each); the floor's block sleeps each presentation's air
    // time, then runs the crypto floor once, as many times.
    let pairs = InterleavedPairs(.cost)
    let block = Duration.milliseconds(100)
    for attMTU in [185, 517] {
        Benchmark("pairs: presentation MTU \(attMTU) / air time + crypto", configuration: pairs.configuration(pairs: short ? 15 : 41)) {
            benchmark in
            let air = await airFloor(setup, attMTU: attMTU).time
            try await pairs.pair(
                benchmark,
                flow: { await wallNanoseconds(perOperationFor: block) { blackHole(await present(setup, air: realisticBLE(attMTU: attMTU))) } },
                floor: {
                    await wallNanoseconds(perOperationFor: block) {
                        try? await Task.sleep(for: air)
                        crypto.run()
                    }
                })
        }
    }
}

/// The primitive operations of one presentation on the same sizes (see the file's header), keys made once.
private struct CryptoFloor: Sendable {
    let holderKey = P256.KeyAgreement.PrivateKey()
    let readerKey = P256.KeyAgreement.PrivateKey()
    let transcript = Data(repeating: 0x5a, count: 160)
    let requestPlain = Data(repeating: 1, count: 180)
    let responsePlain = Data(repeating: 2, count: 5_400)
    let deviceKey = P256.Signing.PrivateKey()
    let issuerKey: P256.Signing.PrivateKey
    let mso: Data
    let msoSignature: P256.Signing.ECDSASignature
    let tbs: Data
    let tbsSignature: P256.Signing.ECDSASignature
    let items = (0..<6).map { Data(repeating: UInt8($0), count: $0 == 5 ? 4_060 : 60) }

    init() {
        let (issuerKey, mso, tbs) = (P256.Signing.PrivateKey(), Data(repeating: 3, count: 700), Data(repeating: 4, count: 400))
        (self.issuerKey, self.mso, self.tbs) = (issuerKey, mso, tbs)
        msoSignature = must("sign") { try issuerKey.signature(for: mso) }
        tbsSignature = must("sign") { try issuerKey.signature(for: tbs) }
    }

    func run() {
        for (mine, theirs) in [(holderKey, readerKey.publicKey), (readerKey, holderKey.publicKey)] {
            let secret = must("ecdh") { try mine.sharedSecretFromKeyAgreement(with: theirs) }
            let salt = Data(SHA256.hash(data: transcript))
            let skA = secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("SKReader".utf8), outputByteCount: 32)
            let skB = secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("SKDevice".utf8), outputByteCount: 32)
            blackHole(must("gcm") { try AES.GCM.open(AES.GCM.seal(requestPlain, using: skA), using: skA) })
            blackHole(must("gcm") { try AES.GCM.open(AES.GCM.seal(responsePlain, using: skB), using: skB) })
        }
        let deviceSignature = must("sign") { try deviceKey.signature(for: tbs) }
        blackHole(deviceKey.publicKey.isValidSignature(deviceSignature, for: tbs))
        blackHole(issuerKey.publicKey.isValidSignature(msoSignature, for: mso))
        blackHole(issuerKey.publicKey.isValidSignature(tbsSignature, for: tbs))
        for item in items { blackHole(SHA256.hash(data: item)) }
    }
}
