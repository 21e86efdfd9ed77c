import Foundation
import TesseraTestSupport

/// `tessera provider serve` as a child process (TesseraTestSupport's `ServiceProcess`), for tests that kill it with
/// SIGKILL. `start` returns once the provider prints the address it listens on.
enum ProviderProcess {
    static func start(_ arguments: [String], home: URL) async throws -> ServiceProcess {
        try await ServiceProcess.start(["provider", "serve", "--port", "0", "--auto-migrate"] + arguments, environment: ["TESSERA_HOME": home.path])
    }
}
