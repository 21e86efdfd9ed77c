import Foundation
import MDoc
import ProximitySession
import ProximityTransport
import TesseraCore
import TesseraTrust

/// The long-lived actor that runs reader verifications: camera → engagement → BLE connection →
/// SessionEstablishment → SessionData → mdoc verification against the trusted IACA roots. One
/// `VerifierSession` per verification, dropped at the end (keys wiped, handle released).
public actor VerifierOrchestrator {
    /// What responses are verified against.
    public struct Configuration: Sendable {
        /// IACA roots the DeviceResponse must chain to.
        public var trustAnchors: TrustAnchors
        /// Which ISO/IEC 18013-5 Annex B certificate profile checks apply to the IACA and document signer certificates.
        public var annexB: AnnexBOptions
        /// The instant certificates and the MSO's validity are checked at (injected, ARCHITECTURE.md decision 5).
        public var clock: any TesseraClock
        /// A configuration trusting `trustAnchors`, with the default Annex B checks and the system clock.
        public init(trustAnchors: TrustAnchors, annexB: AnnexBOptions = .default, clock: any TesseraClock = SystemClock()) {
            self.trustAnchors = trustAnchors
            self.annexB = annexB
            self.clock = clock
        }
    }

    /// Every state of every session, in order, for the UI.
    public nonisolated let states: AsyncStream<VerifierSessionState>
    private var publisher = SessionStatePublisher<VerifierSessionState>()

    private let gate: any PrerequisiteGate
    private let camera: any CameraService
    private let bluetooth: any BluetoothTransport
    private let crypto: ReaderCrypto
    private let configuration: Configuration
    /// The Document Signer chains that validated, kept across sessions: a reader at a door sees the same few all day.
    private let chainCache = DocumentSignerChainCache()
    private var currentSession: VerifierSession?
    private var flowTask: Task<Void, Never>?

    static let required: Set<Capability> = [.bluetoothPoweredOn, .bluetoothPermission, .cameraPermission]

    /// An orchestrator over the platform's services: the prerequisite gate (radio and camera), the camera that
    /// scans the QR engagement, the BLE transport and the reader's session cryptography (decision 4).
    public init(
        gate: any PrerequisiteGate, camera: any CameraService, bluetooth: any BluetoothTransport, crypto: ReaderCrypto,
        configuration: Configuration
    ) {
        self.gate = gate
        self.camera = camera
        self.bluetooth = bluetooth
        self.crypto = crypto
        self.configuration = configuration
        states = publisher.states
    }

    deinit { publisher.finish() }

    /// Starts a verification of `request`: prerequisites, then the camera, then the exchange.
    public func startVerification(_ request: VerificationRequest) async throws(VerifierSessionError) {
        if let session = currentSession, !session.state.isTerminal { throw .verificationInProgress }
        let session = VerifierSession(request: request)
        currentSession = session
        publish(session.state)
        await checkPrerequisites(session)
    }

    /// Asks the gate to obtain `capability` while in `preflight`, then checks the prerequisites again.
    public func resolve(_ capability: Capability) async {
        guard let session = currentSession, session.state.phase == .preflight else { return }
        await gate.resolve(capability)
        guard currentSession === session, session.state.phase == .preflight else { return }
        await checkPrerequisites(session)
    }

    /// Stops the running verification; a connected holder gets SessionData status 20 and the BLE End.
    public func cancelVerification() async {
        guard let session = currentSession, !session.state.isTerminal else { return }
        flowTask?.cancel()
        await terminate(session)
        move(session, to: .cancelled)
        finish(session)
    }

    /// The current session's state, if a verification is running.
    public var currentState: VerifierSessionState? { currentSession?.state }

    /// Weak references to the current session, its keys and its handle, for clean-up checks.
    public func probeCurrentSession() -> LifetimeProbe? {
        guard let session = currentSession else { return nil }
        let probe = LifetimeProbe()
        session.watch(with: probe)
        return probe
    }

    /// Waits until the running verification ends and returns its final state.
    public func waitForCompletion() async -> VerifierSessionState? {
        await flowTask?.value
        return lastTerminalState
    }

    private var lastTerminalState: VerifierSessionState?

    // MARK: The flow

    private func checkPrerequisites(_ session: VerifierSession) async {
        let missing = await gate.missing(Self.required)
        guard currentSession === session, !session.state.isTerminal else { return }
        guard missing.isEmpty else {
            move(session, to: .preflight(missing: missing))
            return
        }
        guard move(session, to: .readyToScan) else { return finish(session) }
        let id = session.id
        flowTask = Task { [weak self] in await self?.run(sessionID: id) }
    }

    private func run(sessionID: UUID) async {
        guard let session = currentSession, session.id == sessionID else { return }
        var requestBytes = 0
        do {
            let scanned = try await camera.scan()
            guard currentSession === session, move(session, to: .processingEngagement) else { return }
            try crypto.processEngagement(scanned, in: session)
            guard move(session, to: .connecting), let endpoint = session.keys?.endpoint else { return finish(session) }
            let handle: ConnectionHandle
            do {
                handle = try await bluetooth.connect(endpoint)
            } catch {
                throw VerifierSessionError.transport(error)
            }
            try session.setConnection(handle)
            try await handle.waitForConnection()
            let establishment = try crypto.sessionEstablishment(in: session)
            requestBytes = establishment.count
            try await handle.send(establishment)
            let reply = try await handle.receive()
            guard currentSession === session, move(session, to: .verifying) else { return }
            let (response, holderEnded) = try crypto.openSessionData(reply, in: session)
            try session.setResponse(response)
            if holderEnded {
                // The holder ended the session (status 20); it closes the link with the BLE End. Waiting for that
                // instead of hanging up first lets its last write complete (§8.3.3.1.1.7).
                _ = try? await handle.receive(timeout: .seconds(2))
                handle.close()
            } else {
                await terminate(session)
            }
            try await verify(response, session: session, requestBytes: requestBytes, responseBytes: reply.count)
        } catch let error as VerifierSessionError {
            await fail(session, error)
        } catch let error as TransportError {
            await fail(session, .transport(error))
        } catch {
            await fail(session, .transport(.closed))
        }
    }

    private func verify(_ response: DeviceResponse, session: VerifierSession, requestBytes: Int, responseBytes: Int)
        async throws(VerifierSessionError)
    {
        guard let transcript = session.keys?.sessionTranscript else {
            throw .mutatorNotAllowed(property: "response", in: session.state.phase)
        }
        let verifier = MDocVerifier(
            trustAnchors: configuration.trustAnchors, annexB: configuration.annexB, chainCache: chainCache)
        let outcome = await verifier.verify(
            response, request: session.deviceRequest, sessionTranscript: transcript, at: configuration.clock.now())
        guard outcome.isAuthentic else { throw .verificationFailed(outcome.allErrors) }
        let verified = VerifiedResponse(
            documents: outcome.documents, notReturned: outcome.allErrors.filter(\.isCompletenessFailure),
            requestBytes: requestBytes, responseBytes: responseBytes)
        move(session, to: .success(verified))
        finish(session)
    }

    private func fail(_ session: VerifierSession, _ error: VerifierSessionError) async {
        guard currentSession === session, !session.state.isTerminal else { return }
        if Task.isCancelled { return }
        if case .transport = error {} else { await terminate(session) }
        session.invalidate(error)
        finish(session)
    }

    private func terminate(_ session: VerifierSession) async {
        guard let handle = session.connection, handle.isOpen else { return }
        if let message = ReaderCrypto.termination() { try? await handle.send(message) }
        await handle.sendEnd()
    }

    @discardableResult
    private func move(_ session: VerifierSession, to next: VerifierSessionState) -> Bool { publisher.move(session, to: next) }

    private func finish(_ session: VerifierSession) {
        guard currentSession === session else { return }
        if !session.state.isTerminal { session.invalidate(.transport(.closed)) }
        publisher.publishIfNew(session.state)
        lastTerminalState = session.state
        session.release()
        currentSession = nil
    }

    private func publish(_ state: VerifierSessionState) { publisher.publish(state) }
}
