import Foundation

/// Joins received Client2Server / Server2Client values back into messages (§8.3.3.1.1.6), enforcing the chunk
/// rules and a size limit.
struct BLEReassembler: Sendable {
    let chunker: BLEChunker
    let maximumMessageSize: Int
    /// When true, a 0x01 value shorter than the maximum is a violation: the sender must fill every value but the
    /// last, which is how both sides agree on the split.
    let requireFullNonFinalChunks: Bool
    private var buffer = Data()
    private var partial = false

    init(chunker: BLEChunker, maximumMessageSize: Int, requireFullNonFinalChunks: Bool) {
        self.chunker = chunker
        self.maximumMessageSize = maximumMessageSize
        self.requireFullNonFinalChunks = requireFullNonFinalChunks
    }

    /// Whether part of a message has arrived.
    var hasPartialMessage: Bool { partial }

    /// Consumes one value; returns the message it completes, if any.
    mutating func append(_ chunk: Data) throws(TransportError) -> Data? {
        guard let header = chunk.first else {
            throw .protocolViolation("empty chunk")
        }
        guard chunk.count <= chunker.maximumChunkLength else {
            throw .protocolViolation(
                "chunk of \(chunk.count) bytes longer than the maximum \(chunker.maximumChunkLength)")
        }
        let payload = chunk.dropFirst()
        switch header {
        case BLEChunker.moreFollows:
            if requireFullNonFinalChunks && chunk.count < chunker.maximumChunkLength {
                throw .protocolViolation(
                    "non-final chunk shorter than the maximum (\(chunk.count) < \(chunker.maximumChunkLength))")
            }
            try reserve(payload.count)
            if !partial {
                buffer = Data(capacity: min(maximumMessageSize, chunker.payloadPerChunk * 16))
                partial = true
            }
            buffer.append(payload)
            return nil
        case BLEChunker.lastPart:
            try reserve(payload.count)
            if !partial { return Data(payload) }
            buffer.append(payload)
            let message = buffer
            buffer = Data()
            partial = false
            return message
        default:
            throw .protocolViolation("unknown chunk header \(String(format: "0x%02x", header))")
        }
    }

    private func reserve(_ more: Int) throws(TransportError) {
        let total = (partial ? buffer.count : 0) + more
        guard total <= maximumMessageSize else { throw .messageTooLarge(limit: maximumMessageSize) }
    }
}
