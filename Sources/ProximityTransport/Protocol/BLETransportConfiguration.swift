import Foundation

/// Limits and time bounds of a `BLETransport`.
public struct BLETransportConfiguration: Sendable, Hashable {
    /// The longest message reassembled; a longer one fails the connection with `.messageTooLarge`.
    public var maximumMessageSize: Int
    /// How long the reader scans for the mdoc's service in peripheral server mode (`nil`: the radio's default).
    public var scanTimeout: Duration?
    /// How long `connect()` / `waitForConnection()` may take from the start (`nil`: until closed or cancelled);
    /// when it passes, the connection fails with `.timedOut`.
    public var connectionTimeout: Duration?
    /// Reject a 0x01 chunk shorter than min(ATT_MTU − 3, 512) (§8.3.3.1.1.6 fills every part but the last).
    public var requireFullNonFinalChunks: Bool

    public init(
        maximumMessageSize: Int = 1 << 20,
        scanTimeout: Duration? = nil,
        connectionTimeout: Duration? = nil,
        requireFullNonFinalChunks: Bool = true
    ) {
        self.maximumMessageSize = maximumMessageSize
        self.scanTimeout = scanTimeout
        self.connectionTimeout = connectionTimeout
        self.requireFullNonFinalChunks = requireFullNonFinalChunks
    }
}
