import Foundation
import MDoc
import ProximitySession
import ProximityTransport
import TesseraCore
import TesseraTrust

/// The long-lived actor that runs holder presentations (ARCHITECTURE.md decision 4). It owns the
/// services, creates one `HolderSession` per presentation, drives it through its states and drops it at
/// the end (`currentSession = nil`), which wipes its keys and releases its connection handle.
///
/// A UI observes `states`; it calls `resolve` while in `preflight`, `userDidConsent` in `requestReceived`,
/// and `cancelPresentation` at any time. A disconnect or transport error after the engagement was shown
/// cancels the session (it is never resumed).
public actor HolderOrchestrator {
    /// What the orchestrator checks requests against.
    public struct Configuration: Sendable {
        /// Reader roots for ReaderAuth; nil shows requests as "reader not authenticated".
        public var readerTrust: TrustAnchors?
        /// The instant reader certificates are validated at (injected, ARCHITECTURE.md decision 5).
        public var clock: any TesseraClock
        /// No reader trust and the system clock by default.
        public init(readerTrust: TrustAnchors? = nil, clock: any TesseraClock = SystemClock()) {
            self.readerTrust = readerTrust
            self.clock = clock
        }
    }

    /// Every state of every session, in order, for the UI.
    public nonisolated let states: AsyncStream<HolderSessionState>
    private var publisher = SessionStatePublisher<HolderSessionState>()

    private let gate: any PrerequisiteGate
    private let crypto: any CryptoService
    private let bluetooth: any BluetoothTransport
    private let configuration: Configuration
    private var currentSession: HolderSession?
    private var connectionTask: Task<Void, Never>?
    private var watchTask: Task<Void, Never>?

    static let required: Set<Capability> = [.bluetoothPoweredOn, .bluetoothPermission]

    /// An orchestrator over the platform's services: the prerequisite gate (radio power and permission), the
    /// session cryptography and the BLE transport (decision 4: simulated or loopback radios on Linux and in tests,
    /// CoreBluetooth on Apple platforms).
    public init(
        gate: any PrerequisiteGate, crypto: any CryptoService, bluetooth: any BluetoothTransport,
        configuration: Configuration = Configuration()
    ) {
        self.gate = gate
        self.crypto = crypto
        self.bluetooth = bluetooth
        self.configuration = configuration
        states = publisher.states
    }

    deinit { publisher.finish() }

    // MARK: What the UI calls

    /// Starts presenting `credential`: engagement, prerequisites, then advertising and waiting for a reader.
    public func startPresentation(_ credential: StoredCredential) async throws(HolderSessionError) {
        if let session = currentSession, !session.state.isTerminal { throw .presentationInProgress }
        let session = HolderSession(credential: credential)
        currentSession = session
        publish(session.state)
        do {
            try await crypto.prepareEngagement(in: session)
        } catch {
            finish(session)
            return
        }
        await checkPrerequisites(session)
    }

    /// Asks the gate to obtain `capability`, then checks again (the preflight loop).
    public func resolve(_ capability: Capability) async {
        guard let session = currentSession, session.state.phase == .preflight else { return }
        await gate.resolve(capability)
        guard currentSession === session, session.state.phase == .preflight else { return }
        await checkPrerequisites(session)
    }

    /// The user's answer in `requestReceived`. An empty selection is a refusal: the reader gets a
    /// termination message and the session is cancelled.
    public func userDidConsent(_ items: ConsentSelection) async {
        guard let session = currentSession, session.state.phase == .requestReceived else { return }
        await stopWatching()
        let chosen = items.filter { !$0.value.allSatisfy(\.value.isEmpty) }
        guard !chosen.isEmpty else {
            await terminate(session)
            move(session, to: .cancelled)
            finish(session)
            return
        }
        guard move(session, to: .processingResponse), let handle = session.connection else { return finish(session) }
        do {
            let message = try await crypto.generateDeviceSigned(items: chosen, in: session, terminate: true)
            try await handle.send(message)
            await handle.sendEnd()
            move(session, to: .success)
        } catch let error as TransportError {
            return await lost(session, error)
        } catch let error as HolderSessionError {
            return await fail(session, error)
        } catch {
            return await fail(session, .transport(.disconnected))
        }
        finish(session)
    }

    /// The user's refusal; same as consenting to nothing.
    public func userDidDeny() async { await userDidConsent([:]) }

    /// Stops the running presentation: tells the reader (when connected) and cancels the session.
    public func cancelPresentation() async {
        guard let session = currentSession, !session.state.isTerminal else { return }
        connectionTask?.cancel()
        await stopWatching()
        await terminate(session)
        move(session, to: .cancelled)
        finish(session)
    }

    /// The request the UI shows in `requestReceived`.
    public var pendingRequest: ReceivedRequest? { currentSession?.request }

    /// The engagement the UI shows in `presentingEngagement` (QR code and URI).
    public var currentEngagement: HolderEngagement? { currentSession?.engagement }

    /// The current session's state, if a session is running.
    public var currentState: HolderSessionState? { currentSession?.state }

    /// Weak references to the current session, its keys and its handle, for clean-up checks.
    public func probeCurrentSession() -> LifetimeProbe? {
        guard let session = currentSession else { return nil }
        let probe = LifetimeProbe()
        session.watch(with: probe)
        return probe
    }

    // MARK: The flow

    private func checkPrerequisites(_ session: HolderSession) async {
        let missing = await gate.missing(Self.required)
        guard currentSession === session, !session.state.isTerminal else { return }
        guard missing.isEmpty else {
            move(session, to: .preflight(missing: missing))
            return
        }
        guard move(session, to: .readyToPresent), move(session, to: .presentingEngagement) else { return finish(session) }
        do {
            try await bluetooth.startAdvertising(in: session)
        } catch {
            session.invalidate(error)
            return finish(session)
        }
        let id = session.id
        connectionTask = Task { [weak self] in await self?.awaitReader(sessionID: id) }
    }

    /// presentingEngagement → connecting → requestReceived.
    private func awaitReader(sessionID: UUID) async {
        guard let session = currentSession, session.id == sessionID, let handle = session.connection else { return }
        do {
            try await handle.waitForConnection()
            guard currentSession === session, move(session, to: .connecting) else { return }
            let incoming = try await handle.receive()
            guard currentSession === session else { return }
            let deviceRequest = try await crypto.processSessionEstablishment(incoming: incoming, in: session)
            let received = await describe(deviceRequest, session: session)
            try session.setRequest(received)
            guard move(session, to: .requestReceived) else { return finish(session) }
            watchTask = Task { [weak self] in await self?.watchDuringConsent(sessionID: sessionID, handle: handle) }
        } catch let error as TransportError {
            await lost(session, error)
        } catch let error as HolderSessionError {
            await fail(session, error)
        } catch {
            await fail(session, .transport(.disconnected))
        }
    }

    /// While the user decides, anything from the reader ends the session: a disconnect, the BLE End, or a
    /// SessionData with status 20.
    private func watchDuringConsent(sessionID: UUID, handle: ConnectionHandle) async {
        do {
            _ = try await handle.receive()
            if Task.isCancelled { return }
            guard let session = currentSession, session.id == sessionID else { return }
            await lost(session, .sessionEnded)
        } catch {
            if Task.isCancelled { return }
            guard let session = currentSession, session.id == sessionID else { return }
            await lost(session, error)
        }
    }

    /// The link went away or the reader ended the session: the cancellation flow.
    private func lost(_ session: HolderSession, _ error: TransportError) async {
        guard currentSession === session, !session.state.isTerminal else { return }
        connectionTask?.cancel()
        move(session, to: .cancelled)
        finish(session)
    }

    /// A protocol failure: tell the reader with the status §9.1.1.4 names, then fail.
    private func fail(_ session: HolderSession, _ error: HolderSessionError) async {
        guard currentSession === session else { return }
        switch error {
        case .sessionEncryption: await terminate(session, status: .sessionEncryptionError)
        case .invalidRequest: await terminate(session, status: .cborDecodingError)
        default: await terminate(session)
        }
        session.invalidate(error)
        finish(session)
    }

    /// Sends SessionData with `status` and the BLE End, if a reader is connected; errors are ignored
    /// because the session ends either way.
    private func terminate(_ session: HolderSession, status: SessionData.Status = .sessionTermination) async {
        guard let handle = session.connection, handle.isOpen else { return }
        if let message = try? SessionData(status: status).encoded() {
            try? await handle.send(message)
        }
        await handle.sendEnd()
    }

    private func describe(_ request: DeviceRequest, session: HolderSession) async -> ReceivedRequest {
        var auth: [ReaderAuthenticationOutcome?] = []
        var available: [String: [String: [String: Bool]]] = [:]
        var unavailable: [String: [String: Set<String>]] = [:]
        let held = session.credential.issuerSigned.nameSpaces ?? [:]
        for docRequest in request.docRequests {
            if let roots = configuration.readerTrust, let transcript = session.keys?.sessionTranscript {
                auth.append(
                    await ReaderAuthentication.verify(
                        docRequest, sessionTranscript: transcript, readerRoots: roots, at: configuration.clock.now()))
            } else {
                auth.append(nil)
            }
            let items = docRequest.itemsRequest.value
            for (namespace, elements) in items.nameSpaces {
                let heldElements = Set((held[namespace] ?? []).map(\.value.elementIdentifier))
                for (element, intentToRetain) in elements {
                    if items.docType == session.credential.docType, heldElements.contains(element) {
                        available[items.docType, default: [:]][namespace, default: [:]][element] = intentToRetain
                    } else {
                        unavailable[items.docType, default: [:]][namespace, default: []].insert(element)
                    }
                }
            }
        }
        return ReceivedRequest(
            deviceRequest: request, readerAuthentication: auth, available: available, unavailable: unavailable)
    }

    // MARK: State bookkeeping

    @discardableResult
    private func move(_ session: HolderSession, to next: HolderSessionState) -> Bool { publisher.move(session, to: next) }

    private func stopWatching() async {
        watchTask?.cancel()
        await watchTask?.value
        watchTask = nil
    }

    /// Publishes the final state and drops the session (its deinit wipes keys and releases the handle).
    private func finish(_ session: HolderSession) {
        guard currentSession === session else { return }
        if !session.state.isTerminal { session.invalidate(.transport(.closed)) }
        publisher.publishIfNew(session.state)
        session.release()
        watchTask?.cancel()
        watchTask = nil
        connectionTask = nil
        currentSession = nil
    }

    private func publish(_ state: HolderSessionState) { publisher.publish(state) }
}

/// What HolderKit adds to a transport: advertising the endpoint of a session's engagement.
extension BluetoothTransport {
    /// Starts advertising the session's engagement endpoint and gives the handle to the session.
    nonisolated(nonsending) public func startAdvertising(in session: HolderSession) async throws(HolderSessionError) {
        guard let endpoint = session.engagement?.endpoint else {
            throw .mutatorNotAllowed(property: "connection", in: session.state.phase)
        }
        let handle: ConnectionHandle
        do {
            handle = try await startAdvertising(endpoint)
        } catch {
            throw .transport(error)
        }
        try session.setConnection(handle)
    }
}
