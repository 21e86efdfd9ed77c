import Foundation
import HTTPTransport
import TesseraHTTP
import TesseraTestSupport
import Testing

@testable import Vault

/// SIGTERM of a `tessera vault serve` process (issue 29, swift-service-lifecycle): it gives its leases back before it
/// exits, so another host takes its vaults at its next lease round instead of after the lease time; and its admin
/// listener answers /health, /ready and /metrics while it serves.
@Suite(.serialized, .enabled(if: VaultReliability.natsServerAvailable))
struct VaultHostTerminationTests {
    /// Long, so that a takeover that waited for the lease to run out could not pass for a handover.
    static let leaseTime: TimeInterval = 12

    @Test func aTerminatedHostHandsItsVaultsOverAtOnce() async throws {
        try await HostProcesses.with(database: "sqlite") { deployment in
            let first = try await deployment.startHost("t1", leaseTime: Self.leaseTime)
            var members: [VaultReliability.Member] = []
            for _ in 0..<2 { members.append(try await deployment.enroll()) }
            try await deployment.waitUntilServed(members, by: "t1")

            // The admin listener (--admin-port 0 by default: a free loopback port).
            let admin = try #require(first.output.split(separator: "\n").first { $0.hasPrefix("admin on ") }?.dropFirst("admin on ".count))
            let http = AsyncHTTPClientTransport()
            defer { Task { try? await http.shutdown() } }
            func get(_ path: String) async throws -> HTTPResponse {
                try await http.send(HTTPRequest(method: .get, url: try #require(URL(string: String(admin) + path))))
            }
            #expect(try await get("/health").status == 200)
            #expect(try await get("/ready").status == 200)
            let metrics = String(decoding: try await get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"tessera_vault_running{host="t1"} 2"#), "\(metrics)")

            _ = try await deployment.startHost("t2", leaseTime: Self.leaseTime)
            let terminated = ContinuousClock.now
            first.stop()  // SIGTERM, then waits for the exit
            try await deployment.waitUntilServed(members, by: "t2")
            let handover = ContinuousClock.now - terminated
            #expect(handover < .seconds(Self.leaseTime / 2), "the vaults moved after \(handover): the leases were not given back")
        }
    }
}
