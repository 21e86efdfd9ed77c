import Foundation
import HolderKit
import MDoc
import ProximityTransport
import Synchronization
import TesseraCore
import TesseraTrust
import VerifierKit
import ProximityTransportTesting

/// A gate whose missing capabilities go away when resolved.
final class TestGate: PrerequisiteGate {
    private let missingNow: Mutex<Set<Capability>>
    init(missing: Set<Capability> = []) { missingNow = Mutex(missing) }
    func missing(_ required: Set<Capability>) async -> Set<Capability> { missingNow.withLock { $0.intersection(required) } }
    func resolve(_ capability: Capability) async { _ = missingNow.withLock { $0.remove(capability) } }
}

/// What the holder's user does at the consent screen.
enum UserAction: Sendable {
    case allowAll
    case allow([String])
    case deny
    /// Nothing: the test does something else (drops the link, cancels the reader) through `atConsent`.
    case wait
}

/// One holder and one reader on a simulated air.
struct Harness {
    let fixtures: ProximityFixtures
    let air: SimulatedAir
    let mdocTransport: BLETransport
    let readerTransport: BLETransport
    let holder: HolderOrchestrator
    let verifier: VerifierOrchestrator
    let camera = InProcessCamera()
    /// Where the holder's and the reader's calls run (so that the radios they create find their phone, e.g. a
    /// CoreBluetooth host of the double each); directly by default.
    let holderScope: Scope
    let readerScope: Scope

    typealias Scope = @Sendable (_ body: () async throws -> Void) async throws -> Void

    /// - Parameter transports: the mdoc's and the reader's transports; by default a pair on a simulated air.
    init(
        fixtures: ProximityFixtures, air: SimulatedAirConfiguration = SimulatedAirConfiguration(),
        bleMode: BLEMode = .mdocPeripheralServer, readerAuth: Bool = true, trust: TrustAnchors? = nil,
        holderGate: TestGate = TestGate(), transports: (mdoc: BLETransport, reader: BLETransport)? = nil,
        holderScope: @escaping Scope = { try await $0() }, readerScope: @escaping Scope = { try await $0() }
    ) {
        self.fixtures = fixtures
        self.air = SimulatedAir(configuration: air)
        (mdocTransport, readerTransport) = transports ?? self.air.makeTransportPair()
        self.holderScope = holderScope
        self.readerScope = readerScope
        let clock = FixedClock(ProximityFixtures.now)
        holder = HolderOrchestrator(
            gate: holderGate, crypto: MDocCryptoService(random: fixtures.random, bleMode: bleMode), bluetooth: mdocTransport,
            configuration: .init(readerTrust: fixtures.readerRoot.trustAnchors, clock: clock))
        let identity = readerAuth
            ? ReaderIdentity(signingKey: fixtures.readerIdentity.key, certificateChain: fixtures.readerIdentity.chain) : nil
        verifier = VerifierOrchestrator(
            gate: TestGate(), camera: camera, bluetooth: readerTransport,
            crypto: ReaderCrypto(random: fixtures.random, readerIdentity: identity),
            configuration: .init(trustAnchors: trust ?? fixtures.iaca.trustAnchors, clock: clock))
    }

    struct Outcome {
        var holderStates: [HolderSessionState]
        var verifier: VerifierSessionState?
        var request: ReceivedRequest?
        /// Weak references to the holder session, its keys and its handle, taken at the consent screen.
        var holderProbe: LifetimeProbe?
    }

    /// Runs one presentation: the holder shows its QR, the reader scans it and asks for `request`.
    func run(
        _ request: VerificationRequest, credential: StoredCredential? = nil, action: UserAction = .allowAll,
        atConsent: (@Sendable () async -> Void)? = nil
    ) async throws -> Outcome {
        let holder = self.holder
        let camera = self.camera
        let holderTask = Task { () -> (states: [HolderSessionState], request: ReceivedRequest?, probe: LifetimeProbe?) in
            var states: [HolderSessionState] = []
            var request: ReceivedRequest?
            var probe: LifetimeProbe?
            for await state in holder.states {
                states.append(state)
                switch state {
                case .preflight(let missing):
                    for capability in missing { await holder.resolve(capability) }
                case .presentingEngagement:
                    if let uri = await holder.currentEngagement?.uri { camera.show(uri) }
                case .requestReceived:
                    request = await holder.pendingRequest
                    probe = await holder.probeCurrentSession()
                    if let atConsent { await atConsent() }
                    switch action {
                    case .allowAll: await holder.userDidConsent(request?.allAvailable ?? [:])
                    case .allow(let elements):
                        await holder.userDidConsent([MDL.docType: [MDL.namespace: Set(elements)]])
                    case .deny: await holder.userDidDeny()
                    case .wait: break
                    }
                default: break
                }
                if state.isTerminal { break }
            }
            return (states, request, probe)
        }
        let credential = credential ?? fixtures.credential
        try await holderScope { try await holder.startPresentation(credential) }
        try await readerScope { try await verifier.startVerification(request) }
        let verifierFinal = await verifier.waitForCompletion()
        let holderResult = await holderTask.value
        return Outcome(
            holderStates: holderResult.states, verifier: verifierFinal, request: holderResult.request,
            holderProbe: holderResult.probe)
    }

    /// True once nothing is advertised any more and every watched object is gone (polled for up to 2 s:
    /// releases happen as the tasks that held them finish).
    func isCleanedUp(_ probes: LifetimeProbe?...) async -> Bool {
        for _ in 0..<200 {
            let advertised = await mdocTransport.advertisedServices.union(await readerTransport.advertisedServices)
            if advertised.isEmpty, air.advertisedServices.isEmpty, probes.allSatisfy({ ($0?.alive ?? []).isEmpty }) {
                return true
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
