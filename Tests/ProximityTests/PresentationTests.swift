import Foundation
import MDoc
import ProximityTransport
import TesseraCBOR
import TesseraCore
import TesseraTrust
import Synchronization
import Testing

@testable import HolderKit
@testable import VerifierKit
import ProximityTransportTesting
import TesseraTrustTesting

/// Holder and reader end to end over the simulated radio, including every failure path the issue lists.
@Suite struct PresentationTests {
    let fixtures: ProximityFixtures
    init() throws { fixtures = try ProximityFixtures() }

    static let happyPath: [HolderSessionState.Phase] = [
        .notStarted, .readyToPresent, .presentingEngagement, .connecting, .requestReceived, .processingResponse, .success,
    ]

    @Test(arguments: [BLEMode.mdocPeripheralServer, .mdocCentralClient])
    func fullConsent(mode: BLEMode) async throws {
        let harness = Harness(fixtures: fixtures, bleMode: mode)
        let outcome = try await harness.run(.fullMDL)
        #expect(outcome.holderStates.map(\.phase) == Self.happyPath)
        guard case .success(let response) = outcome.verifier else {
            Issue.record("verifier ended \(String(describing: outcome.verifier))")
            return
        }
        let elements = try #require(response.elements[MDL.docType]?[MDL.namespace])
        #expect(Set(elements.keys) == Set(VerificationRequest.fullMDL.elements[MDL.namespace] ?? []))
        #expect(elements["family_name"] == "Doe")
        #expect(response.notReturned.isEmpty)
        #expect(outcome.request?.readerAuthentication.first??.isValid == true)
        #expect(await harness.isCleanedUp(outcome.holderProbe))
    }

    @Test func partialConsentReturnsOnlyTheChosenElements() async throws {
        let harness = Harness(fixtures: fixtures)
        let outcome = try await harness.run(.fullMDL, action: .allow(["given_name", "age_over_21"]))
        guard case .success(let response) = outcome.verifier else {
            Issue.record("verifier ended \(String(describing: outcome.verifier))")
            return
        }
        let returned = Set((response.elements[MDL.docType]?[MDL.namespace] ?? [:]).keys)
        #expect(returned == ["given_name", "age_over_21"])
        #expect(response.notReturned.contains(.requestedElementMissing(namespace: MDL.namespace, element: "family_name")))
        #expect(response.notReturned.allSatisfy { $0.isCompletenessFailure })
    }

    @Test func denyCancelsTheHolderAndTellsTheReader() async throws {
        let harness = Harness(fixtures: fixtures)
        let outcome = try await harness.run(.ageOver21, action: .deny)
        #expect(outcome.holderStates.last == .cancelled)
        #expect(outcome.verifier?.error == .holderTerminated)
        #expect(await harness.isCleanedUp(outcome.holderProbe))
    }

    @Test func disconnectDuringConsent() async throws {
        let harness = Harness(fixtures: fixtures)
        let air = harness.air
        let outcome = try await harness.run(.ageOver21, action: .wait) { air.dropAllLinks() }
        #expect(outcome.holderStates.last == .cancelled)
        #expect(outcome.verifier?.error == .transport(.disconnected))
        #expect(await harness.isCleanedUp(outcome.holderProbe))
    }

    @Test func readerCancelsDuringConsent() async throws {
        let harness = Harness(fixtures: fixtures)
        let verifier = harness.verifier
        let probe = Mutexed<LifetimeProbe?>(nil)
        let outcome = try await harness.run(.ageOver21, action: .wait) {
            probe.set(await verifier.probeCurrentSession())
            await verifier.cancelVerification()
        }
        #expect(outcome.holderStates.last == .cancelled)
        #expect(outcome.verifier?.phase == .cancelled)
        #expect(probe.get()?.watched.sorted() == ["connectionHandle", "keys", "session"])
        #expect(await harness.isCleanedUp(outcome.holderProbe, probe.get()))
    }

    @Test func holderCancelsDuringConsent() async throws {
        let harness = Harness(fixtures: fixtures)
        let holder = harness.holder
        let outcome = try await harness.run(.ageOver21, action: .wait) { await holder.cancelPresentation() }
        #expect(outcome.holderStates.last == .cancelled)
        #expect(outcome.verifier?.error == .holderTerminated)
    }

    /// The link drops before chunk N, for every N of a whole presentation: both sides end, nothing leaks.
    @Test func linkDropAtEveryMessageBoundary() async throws {
        var failures = 0
        for n in 0..<60 {
            let harness = Harness(
                fixtures: fixtures, air: SimulatedAirConfiguration(attMTU: 64, faults: SimulatedFaults(dropLinkAfterChunks: n)))
            let outcome = try await harness.run(.ageOver21)
            let holderEnd = try #require(outcome.holderStates.last)
            #expect(holderEnd.isTerminal, "n=\(n)")
            if case .success = outcome.verifier {
                // Past the last chunk the drop never happens.
                #expect(holderEnd == .success, "n=\(n)")
            } else {
                failures += 1
                #expect(outcome.verifier?.error != nil, "n=\(n): \(String(describing: outcome.verifier))")
                #expect(holderEnd.phase == .cancelled || holderEnd.phase == .failed || holderEnd == .success, "n=\(n)")
            }
            #expect(await harness.isCleanedUp(outcome.holderProbe), "n=\(n)")
        }
        // At ATT_MTU 64 the request and response take more than 30 chunks, so every drop before that fails.
        #expect(failures >= 30 && failures < 60)
    }

    @Test func corruptedChunkHeaderIsAProtocolViolation() async throws {
        let harness = Harness(
            fixtures: fixtures, air: SimulatedAirConfiguration(faults: SimulatedFaults(corruptions: [0: .header(0x05)])))
        let outcome = try await harness.run(.ageOver21)
        #expect(outcome.holderStates.last == .cancelled)
        #expect(outcome.verifier?.error == .transport(.disconnected))
        #expect(await harness.isCleanedUp())
    }

    @Test func corruptedCiphertextIsReportedWithStatus10() async throws {
        let harness = Harness(
            fixtures: fixtures, air: SimulatedAirConfiguration(faults: SimulatedFaults(corruptions: [1: .flipByte(offset: -2, mask: 0x01)])))
        let outcome = try await harness.run(.ageOver21)
        #expect(outcome.holderStates.last == .failed(.sessionEncryption))
        #expect(outcome.verifier?.error == .holderReportedError(status: 10))
    }

    @Test func shortNonFinalChunkIsAProtocolViolation() async throws {
        let harness = Harness(
            fixtures: fixtures, air: SimulatedAirConfiguration(faults: SimulatedFaults(corruptions: [0: .truncate(length: 40)])))
        let outcome = try await harness.run(.ageOver21)
        #expect(outcome.holderStates.last == .cancelled)
        #expect(outcome.verifier?.error == .transport(.disconnected))
    }

    @Test func wrongTrustRootFails() async throws {
        var generator = SeededRandomSource(seed: 99).generator
        let other = try IACAIssuer.create(
            IACARootRequest(country: "US", commonName: "Other IACA", issuerAlternativeName: .rfc822Name("x@example.com")),
            now: ProximityFixtures.now.addingTimeInterval(-86_400), random: &generator)
        let harness = Harness(fixtures: fixtures, trust: other.trustAnchors)
        let outcome = try await harness.run(.ageOver21)
        guard case .verificationFailed(let errors) = outcome.verifier?.error else {
            Issue.record("expected verificationFailed, got \(String(describing: outcome.verifier))")
            return
        }
        #expect(errors.contains { if case .documentSignerChainInvalid = $0 { true } else { false } })
        #expect(outcome.holderStates.last == .success)
    }

    @Test func tamperedElementFails() async throws {
        var issuerSigned = fixtures.credential.issuerSigned
        var items = try #require(issuerSigned.nameSpaces?[MDL.namespace])
        let index = try #require(items.firstIndex { $0.value.elementIdentifier == "age_over_21" })
        var item = items[index].value
        item.elementValue = false
        items[index] = try EncodedCBOR(encoding: item)
        issuerSigned.nameSpaces?[MDL.namespace] = items
        let tampered = StoredCredential(docType: MDL.docType, issuerSigned: issuerSigned, deviceKey: fixtures.credential.deviceKey)
        let outcome = try await Harness(fixtures: fixtures).run(.ageOver21, credential: tampered)
        #expect(outcome.verifier?.error == .verificationFailed([.digestMismatch(namespace: MDL.namespace, element: "age_over_21")]))
    }

    @Test func untrustedReaderIsShownAsSuch() async throws {
        let harness = Harness(fixtures: fixtures, readerAuth: false)
        let outcome = try await harness.run(.ageOver21)
        #expect(outcome.request?.readerAuthentication.first??.errors == [.readerAuthInvalid(reason: "no readerAuth")])
        guard case .success = outcome.verifier else {
            Issue.record("verifier ended \(String(describing: outcome.verifier))")
            return
        }
    }

    @Test func preflightLoopsUntilNothingIsMissing() async throws {
        let harness = Harness(fixtures: fixtures, holderGate: TestGate(missing: [.bluetoothPoweredOn, .bluetoothPermission]))
        let outcome = try await harness.run(.ageOver18)
        let phases = outcome.holderStates.map(\.phase)
        #expect(phases.prefix(2) == [.notStarted, .preflight])
        #expect(phases.last == .success)
    }

    @Test func aSecondPresentationWhileOneRunsIsRefused() async throws {
        let harness = Harness(fixtures: fixtures)
        try await harness.holder.startPresentation(fixtures.credential)
        await #expect(throws: HolderSessionError.presentationInProgress) {
            try await harness.holder.startPresentation(fixtures.credential)
        }
        await harness.holder.cancelPresentation()
        #expect(await harness.holder.currentState == nil)
        #expect(await harness.isCleanedUp())
    }

    @Test func theConnectionIsSealed() async throws {
        let harness = Harness(fixtures: fixtures)
        let session = HolderSession(credential: fixtures.credential)
        try await MDocCryptoService(random: fixtures.random).prepareEngagement(in: session)
        try session.transition(to: .readyToPresent)
        try session.transition(to: .presentingEngagement)
        let endpoint = try #require(session.engagement?.endpoint)
        try session.setConnection(try await harness.mdocTransport.startAdvertising(endpoint))
        let second = try await harness.mdocTransport.startAdvertising(
            BLEEndpoint(serviceUUID: UUID(), mode: .mdocPeripheralServer))
        #expect(throws: HolderSessionError.sealedPropertyRewritten(property: "connection")) {
            try session.setConnection(second)
        }
        #expect(session.state == .failed(.sealedPropertyRewritten(property: "connection")))
        #expect(session.connection == nil)
        #expect(await harness.isCleanedUp())
    }
}

/// A value shared with a @Sendable closure.
final class Mutexed<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    func get() -> Value { storage.withLock { $0 } }
    func set(_ value: Value) { storage.withLock { $0 = value } }
}
