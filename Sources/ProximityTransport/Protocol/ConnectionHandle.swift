import Foundation

/// One ISO 18013-5 BLE connection as its owner (a holder or verifier session) sees it: opaque SessionEstablishment
/// / SessionData messages in and out. Releasing the last reference closes it (stops advertising / disconnects).
public final class ConnectionHandle: Sendable {
    public let endpoint: BLEEndpoint
    public let role: BLERole
    /// The transport that made this handle (held weakly: a transport does not outlive its owner through handles).
    public weak let transport: (any BluetoothTransport)?
    let connection: BLEConnection

    init(connection: BLEConnection, transport: (any BluetoothTransport)?) {
        self.endpoint = connection.endpoint
        self.role = connection.role
        self.transport = transport
        self.connection = connection
    }

    deinit {
        connection.close()
    }

    /// Completes when the link is up and State start (0x01) was written (§8.3.3.1.1.4). Throws the error that
    /// ended the attempt; task cancellation throws `.closed`.
    public func waitForConnection() async throws(TransportError) {
        try await connection.waitForConnection()
    }

    /// Sends one message, chunked onto Client2Server / Server2Client (§8.3.3.1.1.6). Waits for the connection
    /// first. Cancellation before the first chunk throws `.closed`; after it, the connection is closed too (the
    /// peer could not reassemble the rest).
    public func send(_ message: Data) async throws(TransportError) {
        try await connection.send(message)
    }

    /// The next reassembled message. Messages that arrived before the peer ended the session are delivered first;
    /// then `.sessionEnded` (peer wrote End), `.disconnected` (link dropped), `.protocolViolation`,
    /// `.messageTooLarge`. Task cancellation throws `.closed` and leaves the connection open.
    public func receive() async throws(TransportError) -> Data {
        try await connection.receive(timeout: nil)
    }

    /// `receive()` with a time limit: `.timedOut` when it passes (the connection stays open).
    public func receive(timeout: Duration) async throws(TransportError) -> Data {
        try await connection.receive(timeout: timeout)
    }

    /// Session termination: State End (0x02), then disconnect (§8.3.3.1.1.5, §8.3.3.1.1.7).
    public func sendEnd() async {
        await connection.sendEnd()
    }

    /// Stops advertising / disconnects. Idempotent.
    public func close() {
        connection.close()
    }

    /// False once closed, ended or failed.
    public var isOpen: Bool { connection.isOpen }

    public var statistics: TransportStatistics { connection.statistics }
}
