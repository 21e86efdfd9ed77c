import Foundation
import TesseraJOSE
import TesseraTestSupport
import Testing
import VaultClient

/// The README's path with the `tessera` binary, every step a child process: `ledger nats-config` for a nats-server
/// trusting the ledger's operator, `ledger serve --nats`, `ledger invite`, `vault enroll`, `vault serve`, then the
/// vault used from the command line (`secrets`, `profile`) and driven through the ledger (`status`, `stop`, `start`).
@Suite(.serialized, .enabled(if: VaultReliability.natsServerAvailable))
struct VaultCLIEndToEndTests {
    static let password = "correct horse battery staple"

    @Test func theREADMEPathFromInvitationToSecretsProfileAndLifecycle() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vault-cli-\(UUID().uuidString)")
        let ledgerDirectory = directory.appendingPathComponent("ledger")
        // `tessera ledger nats-config > nats.conf && nats-server -c nats.conf` (the operator seeds are created in the
        // ledger's directory on the way; the server picks its port).
        let resolver = directory.appendingPathComponent("nats/accounts")
        try FileManager.default.createDirectory(at: resolver, withIntermediateDirectories: true)
        let config = try await TesseraCLI.run(
            ["ledger", "nats-config", "--operator-dir", ledgerDirectory.path, "--listen", "127.0.0.1:-1", "--resolver-dir", resolver.path],
            environment: ["TESSERA_HOME": directory.path])
        #expect(config.status == 0, "\(config.stderr)")
        let server = try OperatorModeServer(configuration: config.stdout, directory: directory.appendingPathComponent("nats"))
        let services = ServiceList()
        do {
            try await run(directory: directory, ledgerDirectory: ledgerDirectory, nats: server.url, services: services)
        } catch {
            await services.stopAll()
            server.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        await services.stopAll()
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func run(directory: URL, ledgerDirectory: URL, nats: String, services: ServiceList) async throws {
        let home = ["TESSERA_HOME": directory.path]
        let ledger = try await ServiceProcess.start(
            ["ledger", "serve", "--nats", nats, "--operator-dir", ledgerDirectory.path, "--port", "0", "--kdf-cost", "m=256,t=1,p=1"],
            environment: home)
        await services.add(ledger)

        let invite = try await TesseraCLI.run(["ledger", "invite", "--operator-dir", ledgerDirectory.path], environment: home)
        #expect(invite.status == 0, "\(invite.stderr)")
        let code = try #require(invite.stdout.split(separator: "\n").last.map(String.init))

        let device = directory.appendingPathComponent("device")
        let vault = ["--vault-dir", device.path]
        let user = home.merging(["TESSERA_VAULT_PASSWORD": Self.password]) { $1 }
        let enrolled = try await TesseraCLI.run(
            ["vault", "enroll", "--ledger", ledger.baseURL, "--invitation", code, "--device-id", "cli-device"] + vault, environment: user)
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(enrolled.stdout.hasPrefix("enrolled as "))
        // The ledger created the vault at finalize; no host serves it yet.
        let waiting = try await TesseraCLI.run(["vault", "status"] + vault, environment: home)
        #expect(waiting.stdout.hasPrefix("vault provisioning (wanted: running"), "\(waiting.stdout)\(waiting.stderr)")
        // A wrong invitation code is refused with the ledger's error.
        let refused = try await TesseraCLI.run(
            ["vault", "enroll", "--ledger", ledger.baseURL, "--invitation", "not-a-code", "--vault-dir", directory.appendingPathComponent("other").path],
            environment: user)
        #expect(refused.status != 0 && refused.stderr.contains("the ledger answered"), "\(refused.stderr)")

        // A vault host on the ledger's directory (operator seeds, vault-master.key, vault.sqlite): it takes the vault.
        let host = try await ServiceProcess.start(
            ["vault", "serve", "--nats", nats, "--operator-dir", ledgerDirectory.path, "--host-id", "h1", "--lease-time", "2"],
            environment: home, ready: "vault host h1 serving")
        await services.add(host)
        try await Self.waitForStatus("vault running (wanted: running, 100%) on h1", vault: vault, environment: home)

        // secrets: the first command bootstraps the session (signed reply checked against the enrolled identity key).
        let added = try await TesseraCLI.run(["vault", "secrets", "add", "bank/pin", "1234"] + vault, environment: home)
        #expect(added.status == 0, "\(added.stderr)")
        let firstVersion = try #require(Self.version(in: added.stdout, after: "bank/pin stored"))
        let session = try #require(try FileVaultSessionKeyStore(directory: device).loadSession())
        let again = try await TesseraCLI.run(["vault", "secrets", "add", "bank/pin", "9999"] + vault, environment: home)
        #expect(again.status != 0 && again.stderr.contains("already_exists"), "\(again.stderr)")
        let replaced = try await TesseraCLI.run(["vault", "secrets", "add", "bank/pin", "4321", "--replace"] + vault, environment: home)
        #expect((Self.version(in: replaced.stdout, after: "bank/pin stored") ?? 0) > firstVersion, "\(replaced.stdout)\(replaced.stderr)")
        #expect(try await TesseraCLI.run(["vault", "secrets", "get", "bank/pin"] + vault, environment: home).stdout == "4321\n")
        _ = try await TesseraCLI.run(["vault", "secrets", "add", "mail/password", "hunter2"] + vault, environment: home)
        #expect(try await TesseraCLI.run(["vault", "secrets", "list"] + vault, environment: home).stdout == "bank/pin\nmail/password\n")
        #expect(try await TesseraCLI.run(["vault", "secrets", "list", "--prefix", "mail/"] + vault, environment: home).stdout == "mail/password\n")
        let listedJSON = try await TesseraCLI.run(["vault", "secrets", "list", "--json"] + vault, environment: home)
        #expect(try JSONValue.parse(Data(listedJSON.stdout.utf8)) == .array([.string("bank/pin"), .string("mail/password")]))
        let deleted = try await TesseraCLI.run(["vault", "secrets", "delete", "mail/password"] + vault, environment: home)
        #expect(deleted.stdout == "mail/password deleted\n", "\(deleted.stderr)")
        let gone = try await TesseraCLI.run(["vault", "secrets", "get", "mail/password"] + vault, environment: home)
        #expect(gone.status != 0 && gone.stderr.contains("not_found"), "\(gone.stderr)")

        // profile
        let set = try await TesseraCLI.run(["vault", "profile", "set", "name=Ada", "email=ada@example.org"] + vault, environment: home)
        #expect(set.stdout.hasPrefix("profile updated (version "), "\(set.stderr)")
        #expect(try await TesseraCLI.run(["vault", "profile", "get"] + vault, environment: home).stdout == "email=ada@example.org\nname=Ada\n")
        _ = try await TesseraCLI.run(["vault", "profile", "set", "email="] + vault, environment: home)
        #expect(try await TesseraCLI.run(["vault", "profile", "get"] + vault, environment: home).stdout == "name=Ada\n")
        let malformed = try await TesseraCLI.run(["vault", "profile", "set", "no-equals-sign"] + vault, environment: home)
        #expect(malformed.status != 0 && malformed.stderr.contains("expected name=value"), "\(malformed.stderr)")

        try await connectAndMessage(ledger: ledger, ledgerDirectory: ledgerDirectory, directory: directory, alice: vault, environment: home)

        // stop: the host lets the vault go, and it no longer answers.
        let stopping = try await TesseraCLI.run(["vault", "stop"] + vault, environment: home)
        #expect(stopping.stdout.hasPrefix("vault stopping (wanted: stopped"), "\(stopping.stdout)\(stopping.stderr)")
        try await Self.waitForStatus("vault stopped (wanted: stopped", vault: vault, environment: home)
        let unanswered = try await TesseraCLI.run(["vault", "secrets", "get", "bank/pin"] + vault, environment: home)
        #expect(unanswered.status != 0 && unanswered.stderr.contains("did not answer in time"), "\(unanswered.stdout)\(unanswered.stderr)")

        // start: a host takes it again, and the same session (no new bootstrap) reads what was stored.
        let starting = try await TesseraCLI.run(["vault", "start"] + vault, environment: home)
        #expect(starting.stdout.hasPrefix("vault provisioning (wanted: running"), "\(starting.stdout)\(starting.stderr)")
        try await Self.waitForStatus("vault running (wanted: running, 100%) on h1", vault: vault, environment: home)
        #expect(try await TesseraCLI.run(["vault", "secrets", "get", "bank/pin"] + vault, environment: home).stdout == "4321\n")
        #expect(try FileVaultSessionKeyStore(directory: device).loadSession()?.sessionID == session.sessionID)
        let json = try await TesseraCLI.run(["vault", "status", "--json"] + vault, environment: home)
        let status = try JSONValue.parse(Data(json.stdout.utf8)).objectValue
        #expect(status?["state"] == .string("running") && status?["desired_state"] == .string("running") && status?["host"] == .string("h1"))
    }

    /// A second user (bob) on the same ledger and host: `connect invite|accept|list`, `message send|inbox`,
    /// `connect revoke`, and a message over the revoked connection refused.
    private func connectAndMessage(
        ledger: ServiceProcess, ledgerDirectory: URL, directory: URL, alice: [String], environment home: [String: String]
    ) async throws {
        let invite = try await TesseraCLI.run(["ledger", "invite", "--operator-dir", ledgerDirectory.path], environment: home)
        let code = try #require(invite.stdout.split(separator: "\n").last.map(String.init))
        let bob = ["--vault-dir", directory.appendingPathComponent("bob").path]
        let user = home.merging(["TESSERA_VAULT_PASSWORD": Self.password]) { $1 }
        let enrolled = try await TesseraCLI.run(
            ["vault", "enroll", "--ledger", ledger.baseURL, "--invitation", code, "--device-id", "bob-device"] + bob, environment: user)
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        try await Self.waitForStatus("vault running (wanted: running, 100%) on h1", vault: bob, environment: home)

        let created = try await TesseraCLI.run(["vault", "connect", "invite", "--label", "Bob", "--json"] + alice, environment: home)
        let offer = try #require(try JSONValue.parse(Data(created.stdout.utf8)).objectValue, "\(created.stderr)")
        guard case .string(let inviteText)? = offer["invite"], case .string(let id)? = offer["connection_id"] else {
            throw TestFixtureError("no invite in \(created.stdout)")
        }
        let accepted = try await TesseraCLI.run(["vault", "connect", "accept", inviteText, "--label", "Alice"] + bob, environment: home)
        #expect(accepted.stdout.hasPrefix("connection \(id) with ") && accepted.stdout.hasSuffix(": active\n"), "\(accepted.stdout)\(accepted.stderr)")
        let listed = try await TesseraCLI.run(["vault", "connect", "list"] + alice, environment: home)
        #expect(listed.stdout.hasPrefix("\(id)  active  ") && listed.stdout.hasSuffix(" \"Bob\"\n"), "\(listed.stdout)\(listed.stderr)")
        // Accepting the same invite again (a retry after a lost answer) is the same connection, not a second one.
        let twice = try await TesseraCLI.run(["vault", "connect", "accept", inviteText] + bob, environment: home)
        #expect(twice.stdout == accepted.stdout, "\(twice.stdout)\(twice.stderr)")
        let bobs = try await TesseraCLI.run(["vault", "connect", "list"] + bob, environment: home)
        #expect(bobs.stdout.split(separator: "\n").count == 1, "\(bobs.stdout)")

        let sent = try await TesseraCLI.run(["vault", "message", "send", id, "lunch at one?", "--message-id", "m-cli"] + alice, environment: home)
        #expect(sent.stdout == "message m-cli delivered\n", "\(sent.stdout)\(sent.stderr)")
        // Bob's app was not listening: the inbox has it, and marking it read sends the receipt.
        let inbox = try await TesseraCLI.run(["vault", "message", "inbox", "--mark-read"] + bob, environment: home)
        #expect(inbox.stdout.hasSuffix("\(id) m-cli (marked read): lunch at one?\n"), "\(inbox.stdout)\(inbox.stderr)")
        #expect(try await TesseraCLI.run(["vault", "message", "inbox"] + bob, environment: home).stdout == "no unread messages\n")
        let all = try await TesseraCLI.run(["vault", "message", "inbox", "--all", "--json"] + bob, environment: home)
        let messages = try JSONValue.parse(Data(all.stdout.utf8)).objectValue?["messages"]?.arrayValue ?? []
        #expect(messages.count == 1 && messages.first?.objectValue?["read_at"] != nil, "\(all.stdout)")

        // Revoked by bob: alice's next message is refused with a typed error.
        let revoked = try await TesseraCLI.run(["vault", "connect", "revoke", id] + bob, environment: home)
        #expect(revoked.stdout == "connection \(id) revoked\n", "\(revoked.stdout)\(revoked.stderr)")
        let refused = try await TesseraCLI.run(["vault", "message", "send", id, "still there?"] + alice, environment: home)
        #expect(refused.status != 0 && refused.stderr.contains("connection_revoked"), "\(refused.stdout)\(refused.stderr)")
    }

    /// Runs `tessera vault status` until its output starts with `expected`.
    static func waitForStatus(_ expected: String, vault: [String], environment: [String: String]) async throws {
        var last = ""
        do {
            try await VaultReliability.eventually("vault status: \(expected)", within: 60) {
                let status = try await TesseraCLI.run(["vault", "status"] + vault, environment: environment)
                last = status.stdout + status.stderr
                return status.stdout.hasPrefix(expected)
            }
        } catch {
            throw TestFixtureError("\(error); last: \(last)")
        }
    }

    /// N in "`prefix` (version N)".
    static func version(in output: String, after prefix: String) -> Int? {
        guard output.hasPrefix(prefix + " (version "), let end = output.firstIndex(of: ")") else { return nil }
        return Int(output[output.index(output.startIndex, offsetBy: prefix.count + " (version ".count)..<end])
    }
}

/// The long-running services a test started, stopped at its end whatever happened.
actor ServiceList {
    private var all: [ServiceProcess] = []
    func add(_ service: ServiceProcess) { all.append(service) }
    func stopAll() {
        for service in all { service.stop() }
        all = []
    }
}

/// One `tessera` command run to its end, as a user would run it.
enum TesseraCLI {
    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// `tessera <arguments>` with `environment` added (less `DATABASE_URL`); waits for the exit without holding a
    /// thread, the output collected in files (no pipe to fill up).
    static func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("stdout"), err = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = ServiceProcess.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DATABASE_URL")
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Result(
            status: status, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
