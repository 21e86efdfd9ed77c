import Foundation
import ProximityTransport

/// The simulated radio environment: link parameters, timing and faults. Links take the values in force when they
/// connect.
public struct SimulatedAirConfiguration: Sendable, Hashable {
    /// The negotiated ATT_MTU of every link (≥ 23). 185 is what iOS typically negotiates.
    public var attMTU: Int
    /// Application throughput in bits per second over ATT PDUs (value + 3-byte ATT header); `nil`: unlimited.
    public var throughput: Int?
    /// Time each Write Command / Notification takes on top of the throughput (connection interval share).
    public var writeLatency: Duration
    /// BLE connection interval: a PDU sent while the link is idle waits for the next connection event;
    /// `nil`: PDUs go at once.
    public var connectionInterval: Duration?
    /// Time from a central finding the service to the link being usable (connect, MTU exchange, discovery).
    public var connectionLatency: Duration
    /// How long `connect` scans when the transport does not say.
    public var scanTimeout: Duration
    public var faults: SimulatedFaults

    public init(
        attMTU: Int = 185, throughput: Int? = nil, writeLatency: Duration = .zero, connectionInterval: Duration? = nil,
        connectionLatency: Duration = .zero, scanTimeout: Duration = .seconds(1), faults: SimulatedFaults = .none
    ) {
        self.attMTU = attMTU
        self.throughput = throughput
        self.writeLatency = writeLatency
        self.connectionInterval = connectionInterval
        self.connectionLatency = connectionLatency
        self.scanTimeout = scanTimeout
        self.faults = faults
    }

    /// Air time of one PDU carrying `valueLength` bytes.
    func cost(valueLength: Int) -> Duration {
        var cost = writeLatency
        if let throughput, throughput > 0 {
            let bits = Int64(valueLength + ATT.headerLength) * 8
            cost += .nanoseconds(bits * 1_000_000_000 / Int64(throughput))
        }
        return cost
    }
}
