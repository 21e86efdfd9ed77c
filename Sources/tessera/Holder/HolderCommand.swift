import ArgumentParser
import Foundation
import HolderKit
import MDoc
import ProximityTransport

/// `tessera holder …`: the holder's proximity presentation, each state rendered as a terminal screen.
struct HolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "holder", abstract: "Present a wallet credential in person (ISO 18013-5).",
        subcommands: [HolderPresent.self])
}

struct HolderPresent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Show a QR engagement, wait for a reader, ask for consent, send the response.",
        discussion: """
            The radio is the loopback radio: a reader on this machine ('tessera verifier scan') connects through \
            a Unix socket in --radio-dir, over the same ISO 18013-5 BLE GATT protocol code as a real radio. \
            --consent all|none|ITEMS answers the consent question (ITEMS: element identifiers, comma-separated); \
            without it the command asks. Exit status 0 iff the response was sent.
            """)

    @Option(help: "Wallet directory (default: $TESSERA_HOME/wallet).")
    var wallet: String?

    @Option(help: "Credential id to present (default: the wallet's first mdoc).")
    var credential: String?

    @Option(help: "Consent: all, none, or comma-separated element identifiers. Asked interactively if absent.")
    var consent: String?

    @Option(help: "BLE mode: peripheral (mdoc peripheral server, the QR default) or central (mdoc central client).")
    var mode: ModeOption = .peripheral

    @Option(name: .customLong("engagement-out"), help: "Also write the mdoc: engagement URI to this file.")
    var engagementOut: String?

    @Option(name: .customLong("radio-dir"), help: "Loopback radio directory (default: $XDG_RUNTIME_DIR/tessera-ble).")
    var radioDir: String?

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 300

    @Flag(help: "Print the final state as JSON (screens go to standard error).")
    var json = false

    enum ModeOption: String, ExpressibleByArgument, CaseIterable {
        case peripheral, central
        var bleMode: BLEMode { self == .peripheral ? .mdocPeripheralServer : .mdocCentralClient }
    }

    func run() async throws {
        let walletDirectory = WalletDirectory(url: TesseraHome.wallet(wallet))
        let (record, stored) = try walletDirectory.mdoc(id: credential)
        let radio = try ProximityRadio.loopback(directory: radioDir)
        let orchestrator = HolderOrchestrator(
            gate: radio.gate, crypto: MDocCryptoService(bleMode: mode.bleMode), bluetooth: radio.transport)
        let screen = Screen(toStandardError: json)
        screen.show("Presenting \(record.type) (\(record.id)) from \(walletDirectory.url.path)")
        let deadline = Task {
            try await Task.sleep(for: .seconds(timeout))
            screen.show("Timed out after \(Int(timeout)) s.")
            await orchestrator.cancelPresentation()
        }
        defer { deadline.cancel() }
        try await orchestrator.startPresentation(stored)
        var shared: ConsentSelection = [:]
        var final: HolderSessionState = .cancelled
        for await state in orchestrator.states {
            switch state {
            case .notStarted, .readyToPresent:
                break
            case .preflight(let missing):
                screen.show("Needed first: \(missing.map { $0.rawValue }.sorted().joined(separator: ", ")) — resolving…")
                for capability in missing.sorted(by: { $0.rawValue < $1.rawValue }) { await orchestrator.resolve(capability) }
            case .presentingEngagement:
                guard let engagement = await orchestrator.currentEngagement else { break }
                screen.show(engagement.qrCode.terminalString())
                screen.show(engagement.uri)
                screen.show("Waiting for a reader (\(mode.rawValue) mode)…")
                if let engagementOut { try MDocFiles.write(Data((engagement.uri + "\n").utf8), to: engagementOut) }
            case .connecting:
                screen.show("Connecting…")
            case .requestReceived:
                guard let request = await orchestrator.pendingRequest else { break }
                ConsentScreen.show(request, on: screen)
                shared = try await ConsentScreen.decide(request, answer: consent, screen: screen)
                screen.show(shared.isEmpty ? "Denied." : "Allowed: \(ConsentScreen.describe(shared))")
                await orchestrator.userDidConsent(shared)
            case .processingResponse:
                screen.show("Generating proof…")
            case .success:
                screen.show("Sent.")
            case .failed(let error):
                screen.show("Failed: \(error)")
            case .cancelled:
                screen.show("Cancelled.")
            }
            if state.isTerminal {
                final = state
                break
            }
        }
        if json { print(try CBORJSON.serialize(Self.json(final, shared: shared))) }
        guard final == .success else { throw ExitCode(1) }
    }

    static func json(_ state: HolderSessionState, shared: ConsentSelection) -> [String: Any] {
        var out: [String: Any] = ["state": state.phase.rawValue]
        if case .failed(let error) = state { out["error"] = "\(error)" }
        if state == .success { out["shared"] = shared.mapValues { $0.mapValues { $0.sorted() } } }
        return out
    }
}

/// Prints screens to standard output, or to standard error when standard output carries JSON.
struct Screen: Sendable {
    let toStandardError: Bool
    func show(_ text: String) {
        if toStandardError {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        } else {
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    }
}
