import Foundation
import MDoc
import PropertyBased
import ProximityTransport
import TesseraCore
import Testing

@testable import HolderKit
@testable import VerifierKit

/// The two state machines on their own: the transition tables, terminal states, and the gated mutators.
@Suite struct SessionStateMachineTests {
    let fixtures: ProximityFixtures

    init() throws { fixtures = try ProximityFixtures() }

    @Test func holderFollowsTheSeedPath() throws {
        let session = HolderSession(credential: fixtures.credential)
        let path: [HolderSessionState] = [
            .preflight(missing: [.bluetoothPoweredOn]), .preflight(missing: []), .readyToPresent, .presentingEngagement,
            .connecting, .requestReceived, .processingResponse, .success,
        ]
        for state in path { try session.transition(to: state) }
        #expect(session.state == .success)
    }

    @Test func holderTerminalStatesAreFinal() throws {
        for terminal: HolderSessionState in [.success, .failed(.readerTerminated), .cancelled] {
            for next in HolderSessionState.Phase.allCases {
                #expect(HolderSessionState.allowedTransitions[terminal.phase]?.contains(next) == false)
            }
        }
        let session = HolderSession(credential: fixtures.credential)
        try session.transition(to: .cancelled)
        #expect(throws: HolderSessionError.invalidTransition(from: .cancelled, to: .readyToPresent)) {
            try session.transition(to: .readyToPresent)
        }
        #expect(session.state == .cancelled)
    }

    @Test func holderSkippingAStateFailsTheSession() {
        let session = HolderSession(credential: fixtures.credential)
        #expect(throws: HolderSessionError.invalidTransition(from: .notStarted, to: .connecting)) {
            try session.transition(to: .connecting)
        }
        #expect(session.state == .failed(.invalidTransition(from: .notStarted, to: .connecting)))
    }

    @Test func holderEngagementIsSealed() async throws {
        let session = HolderSession(credential: fixtures.credential)
        let crypto = MDocCryptoService(random: fixtures.random)
        try await crypto.prepareEngagement(in: session)
        let probe = LifetimeProbe()
        session.watch(with: probe)
        #expect(session.engagement != nil)
        #expect(probe.alive.contains("keys"))
        await #expect(throws: HolderSessionError.sealedPropertyRewritten(property: "engagement")) {
            try await crypto.prepareEngagement(in: session)
        }
        #expect(session.state == .failed(.sealedPropertyRewritten(property: "engagement")))
        #expect(session.keys == nil)
        #expect(probe.alive == ["session"])
    }

    @Test func holderRequestOnlyWhileConnecting() throws {
        let session = HolderSession(credential: fixtures.credential)
        let request = ReceivedRequest(
            deviceRequest: DeviceRequest(docRequests: []), readerAuthentication: [], available: [:], unavailable: [:])
        #expect(throws: HolderSessionError.mutatorNotAllowed(property: "request", in: .notStarted)) {
            try session.setRequest(request)
        }
        #expect(session.state.phase == .failed)
        #expect(session.request == nil)
    }

    @Test func verifierEngagementIsSealedAndGated() async throws {
        let holder = HolderSession(credential: fixtures.credential)
        try await MDocCryptoService(random: fixtures.random).prepareEngagement(in: holder)
        let uri = try #require(holder.engagement?.uri)
        let reader = ReaderCrypto(random: fixtures.random)

        let early = VerifierSession(request: .ageOver21)
        #expect(throws: VerifierSessionError.mutatorNotAllowed(property: "engagement", in: .notStarted)) {
            try reader.processEngagement(uri, in: early)
        }

        let session = VerifierSession(request: .ageOver21)
        try session.transition(to: .readyToScan)
        try session.transition(to: .processingEngagement)
        try reader.processEngagement(uri, in: session)
        #expect(session.keys?.endpoint == holder.engagement?.endpoint)
        #expect(throws: VerifierSessionError.sealedPropertyRewritten(property: "engagement")) {
            try reader.processEngagement(uri, in: session)
        }
        #expect(session.state.error == .sealedPropertyRewritten(property: "engagement"))
        #expect(session.keys == nil)
    }

    @Test func verifierRejectsAnInvalidEngagement() throws {
        let session = VerifierSession(request: .ageOver18)
        try session.transition(to: .readyToScan)
        try session.transition(to: .processingEngagement)
        for scanned in ["", "mdoc:", "mdoc:not-base64!", "https://example.com", "mdoc:oQ"] {
            #expect {
                try ReaderCrypto(random: fixtures.random).processEngagement(scanned, in: session)
            } throws: { error in
                if case VerifierSessionError.invalidFormat = error { return true }
                return false
            }
        }
    }

    // MARK: Property: random event sequences never leave the table

    enum Event: CaseIterable { case transition, invalidate, setEngagement, setRequest }

    @Test func holderRandomEventSequencesStayInTheTable() async {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            let random = SeededRandomSource(seed: seed)
            var generator = random.generator
            let session = HolderSession(credential: fixtures.credential)
            let crypto = MDocCryptoService(random: random)
            for _ in 0..<12 {
                let before = session.state
                switch Event.allCases.randomElement(using: &generator) ?? .transition {
                case .transition:
                    let phase = HolderSessionState.Phase.allCases.randomElement(using: &generator) ?? .cancelled
                    try? session.transition(to: Self.holderState(phase))
                case .invalidate: session.invalidate(.readerTerminated)
                case .setEngagement: try? await crypto.prepareEngagement(in: session)
                case .setRequest:
                    try? session.setRequest(
                        ReceivedRequest(
                            deviceRequest: DeviceRequest(docRequests: []), readerAuthentication: [], available: [:],
                            unavailable: [:]))
                }
                let after = session.state
                if before.isTerminal {
                    #expect(after == before)
                } else if after != before {
                    #expect(HolderSessionState.allowedTransitions[before.phase]?.contains(after.phase) == true)
                }
                if after.isTerminal { #expect(session.keys == nil && session.connection == nil) }
            }
        }
    }

    @Test func verifierRandomEventSequencesStayInTheTable() async {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            let random = SeededRandomSource(seed: seed)
            var generator = random.generator
            let session = VerifierSession(request: .ageOver21)
            for _ in 0..<12 {
                let before = session.state.phase
                switch Event.allCases.randomElement(using: &generator) ?? .transition {
                case .transition, .setEngagement:
                    let phase = VerifierSessionState.Phase.allCases.randomElement(using: &generator) ?? .cancelled
                    try? session.transition(to: Self.verifierState(phase))
                case .invalidate: session.invalidate(.holderTerminated)
                case .setRequest: try? session.setDeviceRequest(DeviceRequest(docRequests: []))
                }
                let after = session.state.phase
                if before.isTerminal {
                    #expect(after == before)
                } else if after != before || before == .preflight {
                    #expect(VerifierSessionState.allowedTransitions[before]?.contains(after) == true)
                }
            }
        }
    }

    static func holderState(_ phase: HolderSessionState.Phase) -> HolderSessionState {
        switch phase {
        case .notStarted: .notStarted
        case .preflight: .preflight(missing: [.bluetoothPermission])
        case .readyToPresent: .readyToPresent
        case .presentingEngagement: .presentingEngagement
        case .connecting: .connecting
        case .requestReceived: .requestReceived
        case .processingResponse: .processingResponse
        case .success: .success
        case .failed: .failed(.readerTerminated)
        case .cancelled: .cancelled
        }
    }

    static func verifierState(_ phase: VerifierSessionState.Phase) -> VerifierSessionState {
        switch phase {
        case .notStarted: .notStarted
        case .preflight: .preflight(missing: [.cameraPermission])
        case .readyToScan: .readyToScan
        case .processingEngagement: .processingEngagement
        case .connecting: .connecting
        case .verifying: .verifying
        case .success: .success(VerifiedResponse(documents: [], notReturned: [], requestBytes: 0, responseBytes: 0))
        case .failed: .failed(.holderTerminated)
        case .cancelled: .cancelled
        }
    }
}
