import Foundation

/// The last part of `tessera demo`: the same presentation across two OS processes over the loopback radio —
/// exactly what two terminals do (`tessera holder present` and `tessera verifier scan`), with partial consent.
enum DemoLoopback {
    static func run() async throws {
        print("== The same across two processes over the loopback radio ==")
        let fm = FileManager.default
        let home = fm.temporaryDirectory.appendingPathComponent("tessera-demo-\(UUID().uuidString.prefix(8))")
        defer { try? fm.removeItem(at: home) }
        var environment = ProcessInfo.processInfo.environment
        environment["TESSERA_HOME"] = home.path
        let radio = home.appendingPathComponent("radio").path
        let engagement = home.appendingPathComponent("engagement.txt").path

        let added = try await Child.run(["wallet", "add-mdl"], environment: environment)
        guard added.status == 0 else { throw UserFacingError("wallet add-mdl failed: \(added.stderr)") }
        print("$ tessera wallet add-mdl\n\(added.stdout)", terminator: "")

        let holderArguments = ["holder", "present", "--consent", "given_name,age_over_21", "--engagement-out", engagement,
                               "--radio-dir", radio, "--timeout", "30"]
        let holder = try Child.start(holderArguments, environment: environment)
        for _ in 0..<400 where !fm.fileExists(atPath: engagement) && holder.process.isRunning {
            try await Task.sleep(for: .milliseconds(25))
        }
        let verifierArguments = ["verifier", "scan", "--request", "mdl", "--engagement", engagement, "--radio-dir", radio,
                                 "--timeout", "30"]
        let verifier = try await Child.run(verifierArguments, environment: environment)
        let holderResult = await holder.finish()
        print("$ tessera \(holderArguments.prefix(4).joined(separator: " ")) …   (process \(holder.process.processIdentifier))")
        print(holderResult.stdout.split(separator: "\n").filter { !$0.contains("█") && !$0.contains("▀") && !$0.contains("▄") }
            .map { "  " + $0 }.joined(separator: "\n"))
        print("$ tessera \(verifierArguments.prefix(4).joined(separator: " ")) …")
        print(verifier.stdout.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        guard holderResult.status == 0, verifier.status == 0 else {
            throw UserFacingError("two-process presentation failed: holder \(holderResult.status), verifier \(verifier.status)\n\(verifier.stderr)")
        }
        print("two-process presentation: verified (only given_name and age_over_21 were shared)")
    }
}

/// A child `tessera` process.
struct Child {
    struct Result { let status: Int32; let stdout: String; let stderr: String }
    let process: Process
    let out: Pipe
    let err: Pipe

    /// This executable (so the demo runs the very build it is part of).
    static var executable: URL {
        #if os(Linux)
        let link = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if FileManager.default.isExecutableFile(atPath: link.path) { return link }
        #endif
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }

    static func start(_ arguments: [String], environment: [String: String]) throws -> Child {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Child(process: process, out: out, err: err)
    }

    static func run(_ arguments: [String], environment: [String: String]) async throws -> Result {
        try await start(arguments, environment: environment).finish()
    }

    func finish() async -> Result {
        let (out, err, process) = (self.out, self.err, self.process)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let stdout = out.fileHandleForReading.readDataToEndOfFile()
                let stderr = err.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(
                    returning: Result(
                        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                        stderr: String(decoding: stderr, as: UTF8.self)))
            }
        }
    }
}
