import Foundation
import ProximityTransport
import Testing

/// §8.3.3.1.1.6: values of at most min(ATT_MTU − 3, 512) bytes, header 0x01 (more) / 0x00 (last).
@Suite struct ChunkingTests {
    @Test(arguments: [(23, 20), (185, 182), (247, 244), (512, 509), (515, 512), (516, 512), (517, 512), (1024, 512)])
    func maximumChunkLength(mtu: Int, expected: Int) throws {
        let chunker = try BLEChunker(attMTU: mtu)
        #expect(chunker.maximumChunkLength == expected)
        #expect(chunker.payloadPerChunk == expected - 1)
    }

    @Test func mtuBelowTheLEMinimumIsRejected() {
        #expect(throws: TransportError.protocolViolation("ATT_MTU 22 below the LE minimum 23")) {
            try BLEChunker(attMTU: 22)
        }
    }

    @Test(arguments: [23, 185, 517, 600])
    func chunkCountsAndHeaders(mtu: Int) throws {
        let chunker = try BLEChunker(attMTU: mtu)
        let p = chunker.payloadPerChunk
        let cases: [(length: Int, chunks: Int)] = [
            (0, 1), (1, 1), (p - 1, 1), (p, 1), (p + 1, 2), (2 * p, 2), (2 * p + 1, 3), (100_000, (100_000 + p - 1) / p),
        ]
        for (length, expectedCount) in cases {
            let original = message(length)
            let chunks = chunker.chunks(of: original)
            #expect(chunks.count == expectedCount, "length \(length)")
            #expect(chunker.chunkCount(messageLength: length) == expectedCount)
            for (index, chunk) in chunks.enumerated() {
                let last = index == chunks.count - 1
                #expect(chunk.first == (last ? 0x00 : 0x01), "length \(length) chunk \(index)")
                if !last { #expect(chunk.count == chunker.maximumChunkLength) }
                #expect(chunk.count <= chunker.maximumChunkLength)
            }
            let lastLength = length == 0 ? 0 : length - (expectedCount - 1) * p
            #expect(chunks.last?.count == lastLength + 1)
            #expect(Data(chunks.map { $0.dropFirst() }.joined()) == original)
            #expect(chunks.reduce(0) { $0 + $1.count } == chunker.chunkedLength(messageLength: length))
        }
    }

    @Test func exactChunksAtTheMinimumMTU() throws {
        let chunker = try BLEChunker(attMTU: 23)
        let chunks = chunker.chunks(of: Data(0..<40))
        #expect(chunks == [
            Data([0x01] + Array(0..<19)),
            Data([0x01] + Array(19..<38)),
            Data([0x00, 38, 39]),
        ])
        #expect(chunker.chunks(of: Data()) == [Data([0x00])])
    }

    @Test func chunksOfASliceStartAtItsFirstByte() throws {
        let chunker = try BLEChunker(attMTU: 23)
        let whole = Data(0..<50)
        let slice = whole[10..<31]
        #expect(chunker.chunks(of: slice) == [Data([0x01] + Array(10..<29)), Data([0x00, 29, 30])])
    }

    @Test func bytesOnAirFormula() throws {
        // 100 bytes at ATT_MTU 23: 19 per chunk ⇒ 6 chunks; 100 + 6 headers + 6 × 3 ATT bytes.
        #expect(try TransportStatistics.bytesOnAir(messageLength: 100, attMTU: 23) == 124)
        // 0 bytes: one 0x00 chunk in one PDU.
        #expect(try TransportStatistics.bytesOnAir(messageLength: 0, attMTU: 185) == 4)
        // 5000 bytes at 185: 181 per chunk ⇒ 28 chunks.
        #expect(try TransportStatistics.bytesOnAir(messageLength: 5000, attMTU: 185) == 5000 + 28 * 4)
    }

    @Test func characteristicUUIDsFollowTables11And12() {
        let mdoc = BLEServiceCharacteristics.mdocService
        #expect(mdoc.state.uuidString == "00000001-A123-48CE-896B-4C76973373E6")
        #expect(mdoc.client2Server.uuidString == "00000002-A123-48CE-896B-4C76973373E6")
        #expect(mdoc.server2Client.uuidString == "00000003-A123-48CE-896B-4C76973373E6")
        #expect(mdoc.ident == nil)
        let reader = BLEServiceCharacteristics.mdocReaderService
        #expect(reader.state.uuidString == "00000005-A123-48CE-896B-4C76973373E6")
        #expect(reader.client2Server.uuidString == "00000006-A123-48CE-896B-4C76973373E6")
        #expect(reader.server2Client.uuidString == "00000007-A123-48CE-896B-4C76973373E6")
        #expect(reader.ident?.uuidString == "00000008-A123-48CE-896B-4C76973373E6")
    }
}
