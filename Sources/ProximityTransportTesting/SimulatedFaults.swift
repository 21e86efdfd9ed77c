import Foundation
import ProximityTransport

/// Faults the simulated air injects into each link, counting chunks (Client2Server / Server2Client values, both
/// directions together, from 0) in the order they go on air.
public struct SimulatedFaults: Sendable, Hashable {
    /// The link drops instead of carrying chunk number N (so N chunks get through); both ends see a disconnect.
    public var dropLinkAfterChunks: Int?
    /// From chunk number N on, nothing more is delivered (writes still "succeed"): the peer waits forever.
    public var stallAfterChunks: Int?
    /// Damage done to particular chunks (key: chunk number).
    public var corruptions: [Int: ChunkCorruption]

    public init(
        dropLinkAfterChunks: Int? = nil, stallAfterChunks: Int? = nil, corruptions: [Int: ChunkCorruption] = [:]
    ) {
        self.dropLinkAfterChunks = dropLinkAfterChunks
        self.stallAfterChunks = stallAfterChunks
        self.corruptions = corruptions
    }

    public static let none = SimulatedFaults()
}

/// How one chunk is damaged on air.
public enum ChunkCorruption: Sendable, Hashable {
    /// XOR the byte at `offset` (0 is the chunk header; taken modulo the chunk length) with `mask`.
    case flipByte(offset: Int, mask: UInt8)
    /// Replace the chunk header (first byte) with `value`.
    case header(UInt8)
    /// Keep only the first `length` bytes.
    case truncate(length: Int)

    func apply(to chunk: Data) -> Data {
        guard !chunk.isEmpty else { return chunk }
        var out = Data(chunk)
        switch self {
        case .flipByte(let offset, let mask):
            let index = out.startIndex + ((offset % out.count) + out.count) % out.count
            out[index] ^= mask
        case .header(let value):
            out[out.startIndex] = value
        case .truncate(let length):
            out = Data(out.prefix(max(0, length)))
        }
        return out
    }
}
