// A batch of requests sent to service instances in child processes, and what it cost them: the wall time of the
// batch and the instances' own CPU time. What the service benchmarks measure per batch (the verifier's responses,
// the Wallet Provider's nonce + WIA mix, the ledger's logins), against one instance or several.

import Foundation

/// The cost of one batch of `count` requests.
public struct BatchCost: Sendable {
    public let count: Int
    public let wall: Duration
    /// The instances' CPU time over the batch (every thread), in nanoseconds.
    public let serviceCPU: Int

    public init(count: Int, wall: Duration, serviceCPU: Int) {
        (self.count, self.wall, self.serviceCPU) = (count, wall, serviceCPU)
    }

    /// Wall time per request in nanoseconds: the inverse of the throughput.
    public var wallPerRequest: Double { nanoseconds(wall) / Double(max(1, count)) }
    /// Service CPU time per request in nanoseconds: the inverse of the rate per core.
    public var cpuPerRequest: Double { Double(serviceCPU) / Double(max(1, count)) }
    public var perSecond: Double { 1e9 / max(1, wallPerRequest) }

    /// Two phases of one batch taken together (their requests, wall times and CPU times added).
    public static func + (lhs: BatchCost, rhs: BatchCost) -> BatchCost {
        BatchCost(count: lhs.count + rhs.count, wall: lhs.wall + rhs.wall, serviceCPU: lhs.serviceCPU + rhs.serviceCPU)
    }
}

/// Sends requests 0..<count from `lanes` concurrent clients (lane l sends l, l + lanes, l + 2·lanes, … in that
/// order, so that a client whose requests must stay in order, such as one device's, can own a lane), with the
/// instances' CPU time read before and after. `send` picks the instance (round-robin over them, as a load balancer
/// would, is the caller's choice) and throws on a wrong answer.
public func measureBatch(
    _ count: Int, lanes: Int, on services: [ServiceProcess], _ send: @escaping @Sendable (Int) async throws -> Void
) async throws -> BatchCost {
    let before = ServiceCPUReading(services)
    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for lane in 0..<min(lanes, count) {
            group.addTask {
                for index in stride(from: lane, to: count, by: lanes) { try await send(index) }
            }
        }
        try await group.waitForAll()
    }
    let wall = clock.now - start
    return BatchCost(count: count, wall: wall, serviceCPU: ServiceCPUReading(services).nanoseconds(since: before))
}
