import Foundation
import TesseraJOSE
import Vapor

/// One condition a service needs before it takes traffic (issue 29): nil when it holds, else the reason (never a
/// secret: it is shown to whoever asks `/ready`).
public struct ReadinessCheck: Sendable {
    /// What is checked, as `/ready` names it ("database", "nats").
    public let name: String
    /// nil when the condition holds, else the reason.
    public let check: @Sendable () async -> String?

    /// A check named `name`.
    public init(name: String, check: @escaping @Sendable () async -> String?) {
        self.name = name
        self.check = check
    }

    /// The service's database answers a `SELECT 1` within `timeout`.
    public static func database(_ app: Application, timeout: Duration = .seconds(2)) -> ReadinessCheck {
        let sql = ServiceSQL(app)
        return ReadinessCheck(name: "database") {
            await withTaskGroup(of: String?.self) { group in
                group.addTask {
                    do {
                        try await sql.run { try await $0.raw("SELECT 1").run() }
                        return nil
                    } catch {
                        return "the database does not answer"
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return "the database did not answer within \(timeout)"
                }
                let first = await group.next() ?? "the database check did not run"
                group.cancelAll()
                return first
            }
        }
    }
}

/// `GET /health` (the process answers), `GET /ready` (every readiness check holds; else 503 `not_ready` naming
/// the failed checks) and `GET /metrics` (Prometheus text), for load balancers, orchestrators and scrapers. None
/// touches anything secret nor needs credentials; put /metrics behind the network policy you give scrapers.
enum ServiceProbes {
    static func register(on app: Application, checks: [ReadinessCheck]) {
        app.get("health") { _ async -> Response in
            JSONBody.response(["status": "ok"])
        }
        app.get("metrics") { _ async -> Response in ServiceMetrics.exposition() }
        app.get("ready") { _ async throws -> Response in
            var failures: [String] = []
            for check in checks {
                if let reason = await check.check() { failures.append("\(check.name): \(reason)") }
            }
            guard failures.isEmpty else {
                throw WireError(.serviceUnavailable, "not_ready", failures.joined(separator: "; "))
            }
            return JSONBody.response(["status": "ready", "checks": .array(checks.map { .string($0.name) })])
        }
    }
}
