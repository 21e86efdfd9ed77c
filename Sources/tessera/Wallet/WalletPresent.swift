import ArgumentParser
import Foundation
import HolderKit
import OpenID4VP
import TesseraJOSE
import X509

/// `tessera wallet present 'openid4vp://…'`: the OpenID4VP holder flow over the wallet directory.
struct WalletPresent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Present credentials to a verifier (OpenID4VP 1.0: openid4vp://, haip-vp:// or https link).",
        discussion: """
            Fetches and checks the request (signed Request Object, client identifier), matches its DCQL query \
            against the wallet, and, with consent, sends SD-JWT VC / mdoc presentations (direct_post or \
            direct_post.jwt). The verifier must chain to a trusted root: by default the root of `tessera verifier \
            serve` in $TESSERA_HOME/verifier/root.pem. --consent all|none|ITEMS (claim names, comma-separated) \
            answers the consent question; without it the command asks on standard input.
            """)

    @Argument(help: "The authorization request link.")
    var link: String

    @Option(help: "Wallet directory (default: $TESSERA_HOME/wallet).")
    var wallet: String?

    @Option(help: "all, none, or claim names to share (comma-separated); asked interactively when omitted.")
    var consent: String?

    @Option(name: .customLong("trust-verifier"), help: "Trusted verifier root certificate (PEM); repeatable.")
    var trustVerifier: [String] = []

    @Flag(name: .customLong("allow-untrusted-verifier"), help: "Present even when the verifier's certificate does not chain to a trusted root.")
    var allowUntrustedVerifier = false

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var tls: TLSTrustOptions

    func run() async throws {
        let directory = WalletDirectory(url: TesseraHome.wallet(wallet))
        let credentials = try RemotePresentation.walletCredentials(store: directory.credentials, keys: directory.keys)
        let outcome: RemotePresentationOutcome
        do {
            let config = WalletConfiguration(
                httpClient: SharedHTTP.client, verifierTrustAnchors: try verifierAnchors(),
                verifierTrustPolicy: allowUntrustedVerifier ? .allowUntrusted : .requireTrusted, allowsLoopbackHTTP: true)
            outcome = try await RemotePresentation.present(
                requestURI: link, credentials: credentials, consent: try consentAnswer(), walletConfig: config)
        } catch let failure as OpenID4VPError {
            throw UserFacingError("the presentation failed: \(failure.description)")
        }
        try report(outcome)
    }

    private func consentAnswer() throws -> RemoteConsent {
        var answer = consent
        if answer == nil {
            print("Share with the verifier? all | none | claim names (comma-separated): ")
            answer = readLine() ?? "none"
        }
        switch answer?.trimmingCharacters(in: .whitespaces) ?? "none" {
        case "all": return .all
        case "none", "": return .none
        case let items: return .claims(Set(items.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }))
        }
    }

    private func verifierAnchors() throws -> [Certificate] {
        let defaultRoot = TesseraHome.url.appendingPathComponent("verifier/root.pem").path
        let paths = trustVerifier.isEmpty ? (FileManager.default.fileExists(atPath: defaultRoot) ? [defaultRoot] : []) : trustVerifier
        return try paths.flatMap { path in
            try MDocFiles.certificates(path).map { der in
                do {
                    return try Certificate(derEncoded: Array(der))
                } catch {
                    throw UserFacingError("\(path): not a certificate")
                }
            }
        }
    }

    /// Prints the outcome; exit status 0 only when the verifier accepted the presentation, or the user declined and
    /// the wallet said so.
    private func report(_ outcome: RemotePresentationOutcome) throws {
        var object = JSONObject()
        var result: String
        switch outcome.result {
        case .presented: result = "success"
        case .declined: result = "declined"
        case .noMatchingCredential:
            result = "no_matching_credential"
            object["reason"] = "no credential in the wallet matches the request"
        case .refused(let failure):
            result = "refused"
            object["reason"] = .string(failure.description)
            object["error_sent"] = .string(failure.errorCode.rawValue)
        }
        switch outcome.submission {
        case .success(let redirect, _)?:
            if let redirect { object["redirect_uri"] = .string(redirect.absoluteString) }
        case .error(let error, let description)?:
            // The verifier refused what the wallet sent.
            if outcome.result == .presented { result = "error" }
            object["verifier_error"] = .string(error)
            if let description { object["verifier_error_description"] = .string(description) }
        case .redirect(let url)?:
            object["redirect_uri"] = .string(url.absoluteString)
        case nil:
            object["note"] = "the verifier is not authenticated, so the wallet did not answer it"
        }
        object["result"] = .string(result)
        var verifier: JSONObject = [
            "client_id": .string(outcome.verifier.clientId), "client_id_valid": .bool(outcome.verifier.clientIdValid),
        ]
        if let name = outcome.verifier.displayName { verifier["display_name"] = .string(name) }
        object["verifier"] = .object(verifier)
        var presented = JSONObject()
        for (queryId, ids) in outcome.presented { presented[queryId] = .array(ids.map(JSONValue.string)) }
        var disclosed = JSONObject()
        for (queryId, paths) in outcome.disclosed { disclosed[queryId] = .array(paths.map { .string($0.description) }) }
        object["presented"] = .object(presented)
        object["disclosed"] = .object(disclosed)
        if json {
            print(String(decoding: object.serialized(), as: UTF8.self))
        } else {
            print("verifier: \(outcome.verifier.displayName ?? outcome.verifier.clientId)"
                + (outcome.verifier.clientIdValid ? " (authenticated)" : " (NOT authenticated)"))
            for (queryId, paths) in outcome.disclosed.sorted(by: { $0.key < $1.key }) {
                print("  \(queryId): shared \(paths.map(\.description).joined(separator: ", "))")
            }
            print("result: \(result)")
            if let reason = object["reason"]?.stringValue { print("reason: \(reason)") }
            if let sent = object["error_sent"]?.stringValue { print("error sent to the verifier: \(sent)") }
            if let redirect = object["redirect_uri"]?.stringValue { print("redirect_uri: \(redirect)") }
            if let error = object["verifier_error"]?.stringValue {
                print("verifier answered: \(error) \(object["verifier_error_description"]?.stringValue ?? "")")
            }
        }
        let accepted: Bool
        switch (outcome.result, outcome.submission) {
        case (.presented, .success?), (.presented, .redirect?): accepted = true
        case (.declined, _): accepted = true
        default: accepted = false
        }
        if !accepted { throw ExitCode(1) }
    }
}
