import Foundation

/// Splitting a message into Client2Server / Server2Client values (§8.3.3.1.1.6): each value is at most
/// ATT_MTU − 3 bytes (and at most the 512-byte attribute limit); its first byte is 0x01 when more follows and
/// 0x00 on the last part; the rest is message bytes.
public struct BLEChunker: Sendable, Hashable {
    /// Header of a value that more values follow.
    public static let moreFollows: UInt8 = 0x01
    /// Header of the last value of a message.
    public static let lastPart: UInt8 = 0x00

    /// Length of a full value, header included: min(ATT_MTU − 3, 512).
    public let maximumChunkLength: Int

    /// Fails for an ATT_MTU below the LE minimum of 23.
    public init(attMTU: Int) throws(TransportError) {
        guard attMTU >= ATT.minimumMTU else {
            throw .protocolViolation("ATT_MTU \(attMTU) below the LE minimum \(ATT.minimumMTU)")
        }
        maximumChunkLength = min(attMTU - ATT.headerLength, ATT.maximumAttributeLength)
    }

    /// Message bytes per value.
    public var payloadPerChunk: Int { maximumChunkLength - 1 }

    /// Values needed for a message of `length` bytes (an empty message is one 0x00 value).
    public func chunkCount(messageLength length: Int) -> Int {
        max(1, (length + payloadPerChunk - 1) / payloadPerChunk)
    }

    /// Bytes in all values of a message of `length` bytes, headers included.
    public func chunkedLength(messageLength length: Int) -> Int {
        length + chunkCount(messageLength: length)
    }

    /// The values, in order.
    public func chunks(of message: Data) -> [Data] {
        let count = chunkCount(messageLength: message.count)
        var out: [Data] = []
        out.reserveCapacity(count)
        var offset = message.startIndex
        for index in 0..<count {
            let end = min(offset + payloadPerChunk, message.endIndex)
            var chunk = Data(capacity: end - offset + 1)
            chunk.append(index == count - 1 ? Self.lastPart : Self.moreFollows)
            chunk.append(message[offset..<end])
            out.append(chunk)
            offset = end
        }
        return out
    }
}
