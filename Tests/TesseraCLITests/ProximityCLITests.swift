import Foundation
import Testing

/// `tessera wallet add-mdl`, `tessera holder present` and `tessera verifier scan` as two OS processes that
/// meet over the loopback radio — the two-terminal flow of the README.
@Suite struct ProximityCLITests {
    let home: URL

    init() {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-home-\(UUID().uuidString)")
    }

    func environment() -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["TESSERA_HOME"] = home.path
        return env
    }

    /// Starts the holder, waits for its engagement file, runs the reader, and returns both results.
    func present(consent: String, request: String, extraHolder: [String] = [], extraVerifier: [String] = []) throws
        -> (holder: CLI.Result, verifier: CLI.Result)
    {
        let engagement = home.appendingPathComponent("engagement.txt")
        let radio = home.appendingPathComponent("radio")
        let holder = try CLI.start(
            ["holder", "present", "--consent", consent, "--engagement-out", engagement.path, "--radio-dir", radio.path,
             "--timeout", "60", "--json"] + extraHolder,
            environment: environment())
        var waited = 0
        while !FileManager.default.fileExists(atPath: engagement.path), waited < 600, holder.process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 1
        }
        let verifier = try CLI.run(
            ["verifier", "scan", "--request", request, "--engagement", engagement.path, "--radio-dir", radio.path,
             "--timeout", "60", "--json"] + extraVerifier,
            environment: environment())
        return (holder.finish(), verifier)
    }

    func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func twoProcessesCompleteAPresentationWithPartialConsent() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let added = try CLI.run(["wallet", "add-mdl"], environment: environment())
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("added mDL"))

        let (holder, verifier) = try present(consent: "given_name,age_over_21", request: "mdl")
        #expect(holder.status == 0, "\(holder.stderr)")
        #expect(verifier.status == 0, "\(verifier.stderr)")
        let result = try json(verifier.stdout)
        #expect(result["state"] as? String == "success")
        let documents = try #require(result["documents"] as? [[String: Any]])
        let elements = try #require(documents.first?["elements"] as? [String: Any])
        #expect(Set(elements.keys) == ["given_name", "age_over_21"])
        #expect(elements["given_name"] as? String == "Jane")
        #expect((result["not_returned"] as? [String])?.isEmpty == false)
        #expect(try json(holder.stdout)["state"] as? String == "success")
        #expect(holder.stderr.contains("Connecting…") && holder.stderr.contains("Sent."))
        // The radio directory holds no socket once both are done.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("radio").path)) ?? []
        #expect(left.isEmpty, "\(left)")
    }

    @Test func denyEndsBothWithNonZeroStatus() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try CLI.run(["wallet", "add-mdl"], environment: environment()).status == 0)
        let (holder, verifier) = try present(consent: "none", request: "age_over_21")
        #expect(holder.status == 1)
        #expect(try json(holder.stdout)["state"] as? String == "cancelled")
        #expect(verifier.status == 1)
        let result = try json(verifier.stdout)
        #expect(result["state"] as? String == "failed")
        #expect((result["error"] as? String)?.contains("holderTerminated") == true)
    }

    @Test func aWrongTrustRootFailsTheReader() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(try CLI.run(["wallet", "add-mdl"], environment: environment()).status == 0)
        let other = home.appendingPathComponent("other")
        #expect(try CLI.run(["mdoc", "iaca", "create", "--out", other.path]).status == 0)
        let (_, verifier) = try present(
            consent: "all", request: "age_over_21", extraVerifier: ["--trust", other.appendingPathComponent("iaca.pem").path])
        #expect(verifier.status == 1)
        let errors = try #require(try json(verifier.stdout)["errors"] as? [String])
        #expect(errors.contains("document_signer_chain_invalid"))
    }

    @Test func anInvalidEngagementIsAFormatError() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let r = try CLI.run(
            ["verifier", "scan", "--engagement", "mdoc:AAAA", "--radio-dir", home.appendingPathComponent("radio").path, "--json",
             "--trust", "/dev/null"],
            environment: environment())
        #expect(r.status == 1)
    }

    @Test func holderWithAnEmptyWalletSaysWhatToDo() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let r = try CLI.run(["holder", "present", "--consent", "all"], environment: environment())
        #expect(r.status == 1)
        #expect(r.stderr.contains("tessera wallet add-mdl"))
    }
}

extension CLI {
    struct Running {
        let process: Process
        let out: Pipe
        let err: Pipe

        func finish() -> Result {
            let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
            let stderrData = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Result(
                status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                stderr: String(decoding: stderrData, as: UTF8.self))
        }
    }

    static func start(_ arguments: [String], environment: [String: String]) throws -> Running {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, out: out, err: err)
    }
}
