#if !canImport(DeviceCheck)
import DeviceCheckDouble
import Foundation
import TesseraTestSupport
import Testing
import WalletInstanceKit

/// The Device Integrity Service the iOS wallet ships, `AppAttestIntegrityService`, against the Wallet Provider: its
/// calls to `DCAppAttestService` answered by the DeviceCheck double playing an iPhone whose attestations come from
/// the provider's trusted test App Attestation root.
@Suite struct AppAttestServiceFlowTests {
    @Test func activationAndReissueWithTheAppAttestIntegrityService() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let account = try await fixture.account()
        let clock = fixture.clock
        let device = AppAttestTestDevice(authority: fixture.appleAuthority, app: ProviderFixture.appleApp, now: { clock.now() })
        let wallet = WalletInstanceClient(
            store: WalletInstanceStore(directory: fixture.directory.appendingPathComponent("app-attest-wallet")),
            integrity: AppAttestIntegrityService(), http: fixture.http, clock: clock)
        let (activated, reissued) = try await DCAppAttestService.withScript(device) {
            let activated = try await wallet.activate(provider: fixture.server.baseURL, session: account.session)
            return (activated, try await wallet.reissue())
        }
        #expect(activated.state == .operational)
        #expect(reissued.walletAttestation != nil)
        #expect(reissued.walletAttestation != activated.walletAttestation)
        // Registration attests one key; each Wallet Attestation request carries one assertion by it.
        let keyID = try #require(activated.hardwareKeyTag)
        #expect(device.calls.count == 4)
        #expect(device.calls.first == .generateKey)
        guard case .attestKey(keyID, _) = device.calls[1], case .generateAssertion(keyID, _) = device.calls[2],
            case .generateAssertion(keyID, _) = device.calls[3]
        else {
            Issue.record("unexpected App Attest calls \(device.calls)")
            return
        }
    }
}
#endif
