import Foundation

/// Counters of one connection, for benchmarks. "On air" counts every Client2Server / Server2Client value with its
/// 1-byte chunk header plus the 3-byte ATT header (opcode + handle) of the Write Command or Notification carrying
/// it; State and Ident operations are counted apart in `controlPDUs*`.
public struct TransportStatistics: Sendable, Hashable {
    public var messagesSent = 0
    public var messagesReceived = 0
    /// Message bytes, without chunk headers.
    public var payloadBytesSent = 0
    public var payloadBytesReceived = 0
    public var chunksSent = 0
    public var chunksReceived = 0
    /// Σ (value length + `ATT.headerLength`) over the chunks sent.
    public var bytesOnAirSent = 0
    public var bytesOnAirReceived = 0
    /// State writes / notifications and Ident reads.
    public var controlPDUsSent = 0
    public var controlPDUsReceived = 0
    /// The ATT_MTU of the link (0 until connected).
    public var attMTU = 0

    public init() {}

    public var totalBytesOnAir: Int { bytesOnAirSent + bytesOnAirReceived }

    /// What sending one message of `length` bytes puts on air at `attMTU`: the chunk headers and ATT headers
    /// included.
    public static func bytesOnAir(messageLength length: Int, attMTU: Int) throws(TransportError) -> Int {
        let chunker = try BLEChunker(attMTU: attMTU)
        return chunker.chunkedLength(messageLength: length)
            + chunker.chunkCount(messageLength: length) * ATT.headerLength
    }
}
