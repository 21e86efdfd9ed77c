#if !canImport(CoreBluetooth)
import CoreBluetoothDouble
import Foundation
import MDoc
import ProximityTransport
import Testing

@testable import HolderKit
@testable import VerifierKit

/// A whole in-person presentation (engagement QR, SessionEstablishment with ReaderAuth, consent, DeviceResponse,
/// verification, State End) between a holder phone and a verifier phone whose radios are the CoreBluetooth
/// adapters, on the CoreBluetooth double: what the seeds' iPhone apps run.
@Suite struct CoreBluetoothPresentationTests {
    let fixtures: ProximityFixtures
    init() throws { fixtures = try ProximityFixtures() }

    @Test(arguments: [BLEMode.mdocPeripheralServer, .mdocCentralClient])
    func anMDLIsPresentedOverTheCoreBluetoothAdapters(mode: BLEMode) async throws {
        let air = BluetoothAir()
        let holderPhone = BluetoothHost(air: air, name: "holder")
        let verifierPhone = BluetoothHost(air: air, name: "verifier")
        let harness = Harness(
            fixtures: fixtures, bleMode: mode,
            transports: (BLETransport(radio: CoreBluetoothRadio()), BLETransport(radio: CoreBluetoothRadio())),
            holderScope: { body in try await holderPhone.run(body) },
            readerScope: { body in try await verifierPhone.run(body) })
        let outcome = try await harness.run(.fullMDL)
        #expect(outcome.holderStates.map(\.phase) == PresentationTests.happyPath)
        guard case .success(let response) = outcome.verifier else {
            Issue.record("verifier ended \(String(describing: outcome.verifier))")
            return
        }
        #expect(response.elements[MDL.docType]?[MDL.namespace]?["family_name"] == "Doe")
        #expect(response.notReturned.isEmpty)
        #expect(outcome.request?.readerAuthentication.first??.isValid == true)
        #expect(await harness.isCleanedUp(outcome.holderProbe))
        // Both phones' CoreBluetooth saw the documented calls only.
        #expect(holderPhone.misuses == [])
        #expect(verifierPhone.misuses == [])
        let (server, client) = mode == .mdocPeripheralServer ? (holderPhone, verifierPhone) : (verifierPhone, holderPhone)
        #expect(server.recordedCalls.contains(.peripheralManagerCreated))
        #expect(client.recordedCalls.contains(.centralManagerCreated))
    }
}
#endif
