import ArgumentParser
import Foundation
import MDoc
import ProximityTransport
import TesseraCBOR
import TesseraCOSE
import TesseraTrust
import VerifierKit

/// `tessera verifier …`: the reader side.
struct VerifierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verifier", abstract: "Verify credentials: in person (ISO 18013-5) or remotely (OpenID4VP verifier service).",
        subcommands: [VerifierScan.self, VerifierServe.self, VerifierMigrate.self])
}

struct VerifierScan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Read a holder's QR engagement, connect, request data elements, verify the response.",
        discussion: """
            --engagement takes the mdoc: URI itself, '-' for standard input, or a file holding it; without it \
            the command asks on standard input. --request is age_over_18, age_over_21, mdl, or comma-separated \
            mDL element identifiers. Exit status 0 iff the response verified against --trust.
            """)

    @Option(help: "IACA root certificate(s), PEM (default: the test issuer of 'tessera wallet add-mdl').")
    var trust: String?

    @Option(help: "What to ask for: age_over_18, age_over_21, mdl, or element identifiers (comma-separated).")
    var request = "age_over_21"

    @Option(help: "The holder's engagement: an mdoc: URI, '-' for standard input, or a file.")
    var engagement: String?

    @Option(name: .customLong("reader-key"), help: "Reader private key (PEM) for ReaderAuth.")
    var readerKey: String?

    @Option(name: .customLong("reader-cert"), help: "Reader certificate chain (PEM, leaf first) for ReaderAuth.")
    var readerCert: String?

    @Option(name: .customLong("radio-dir"), help: "Loopback radio directory (default: $XDG_RUNTIME_DIR/tessera-ble).")
    var radioDir: String?

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 120

    @Flag(help: "Print the result as JSON (screens go to standard error).")
    var json = false

    func run() async throws {
        guard let template = VerificationRequest.named(request) else { throw UserFacingError("unknown --request \(request)") }
        let screen = Screen(toStandardError: json)
        let trustPath = trust ?? IssuerDirectory(url: TesseraHome.issuer(nil)).iacaPath
        if trust == nil { screen.show("Trusting the test issuer of 'tessera wallet add-mdl': \(trustPath)") }
        let anchors = try MDocFiles.trustAnchors(trustPath)
        let radio = try ProximityRadio.loopback(directory: radioDir)
        let orchestrator = VerifierOrchestrator(
            gate: radio.gate, camera: TextCamera(source()), bluetooth: radio.transport,
            crypto: ReaderCrypto(readerIdentity: try identity()),
            configuration: .init(trustAnchors: anchors))
        let deadline = Task {
            try await Task.sleep(for: .seconds(timeout))
            screen.show("Timed out after \(Int(timeout)) s.")
            await orchestrator.cancelVerification()
        }
        defer { deadline.cancel() }
        try await orchestrator.startVerification(template)
        var final: VerifierSessionState = .cancelled
        for await state in orchestrator.states {
            switch state {
            case .preflight(let missing):
                screen.show("Needed first: \(missing.map { $0.rawValue }.sorted().joined(separator: ", ")) — resolving…")
                for capability in missing.sorted(by: { $0.rawValue < $1.rawValue }) { await orchestrator.resolve(capability) }
            case .readyToScan:
                if engagement == nil { screen.show("Paste the holder's mdoc: engagement URI:") }
            case .processingEngagement: screen.show("Engagement scanned.")
            case .connecting: screen.show("Connecting…")
            case .verifying: screen.show("Verifying…")
            case .success(let response): Self.show(response, on: screen)
            case .failed(let error): screen.show("Failed: \(error)")
            case .cancelled: screen.show("Cancelled.")
            case .notStarted: break
            }
            if state.isTerminal {
                final = state
                break
            }
        }
        if json { print(try CBORJSON.serialize(Self.json(final))) }
        guard case .success = final else { throw ExitCode(1) }
    }

    private func source() -> TextCamera.Source {
        switch engagement {
        case .none, "-": return .standardInput
        case .some(let text) where text.hasPrefix(MDocQRCode.scheme): return .text(text)
        case .some(let path): return .file(URL(fileURLWithPath: path))
        }
    }

    private func identity() throws -> ReaderIdentity? {
        guard let readerKey else {
            if readerCert != nil { throw UserFacingError("--reader-cert needs --reader-key") }
            return nil
        }
        guard let readerCert else { throw UserFacingError("--reader-key needs --reader-cert") }
        return ReaderIdentity(signingKey: .p256(try MDocFiles.devicePrivateKey(readerKey)), certificateChain: try MDocFiles.certificates(readerCert))
    }

    static func show(_ response: VerifiedResponse, on screen: Screen) {
        for document in response.documents {
            screen.show("Verified \(document.docType) (issuer \(document.documentSigner.map { "\($0.subject)" } ?? "?")):")
            for (namespace, elements) in document.issuerSignedElements.sorted(by: { $0.key < $1.key }) {
                for (element, value) in elements.sorted(by: { $0.key < $1.key }) {
                    screen.show("  \(element) = \(value.diagnostic())\(namespace == MDL.namespace ? "" : "  [\(namespace)]")")
                }
            }
        }
        var withheld: [String] = []
        for missing in response.notReturned {
            if case .requestedElementMissing(_, let element) = missing { withheld.append(element) } else { screen.show("  not returned: \(missing)") }
        }
        if !withheld.isEmpty { screen.show("  not returned (the holder withheld them): \(withheld.joined(separator: ", "))") }
    }

    static func json(_ state: VerifierSessionState) -> [String: Any] {
        var out: [String: Any] = ["state": state.phase.rawValue]
        switch state {
        case .failed(let error):
            out["error"] = "\(error)"
            if case .verificationFailed(let errors) = error { out["errors"] = errors.map(\.code) }
        case .success(let response):
            out["documents"] = response.documents.map { document -> [String: Any] in
                var flat: [String: Any] = [:]
                var spaces: [String: Any] = [:]
                for (namespace, elements) in document.issuerSignedElements.sorted(by: { $0.key < $1.key }) {
                    var values: [String: Any] = [:]
                    for (element, value) in elements {
                        values[element] = CBORJSON.json(value)
                        flat[flat[element] == nil ? element : "\(namespace):\(element)"] = CBORJSON.json(value)
                    }
                    spaces[namespace] = values
                }
                return ["docType": document.docType, "elements": flat, "nameSpaces": spaces]
            }
            out["not_returned"] = response.notReturned.map { "\($0)" }
        default: break
        }
        return out
    }
}
