import Foundation
import Testing

@testable import ProximityTransport

/// The receive-side chunk rules of §8.3.3.1.1.6 and the size limit, on the reassembler alone.
@Suite struct ReassemblerTests {
    func reassembler(mtu: Int = 23, limit: Int = 1 << 20, strict: Bool = true) throws -> BLEReassembler {
        BLEReassembler(
            chunker: try BLEChunker(attMTU: mtu), maximumMessageSize: limit, requireFullNonFinalChunks: strict)
    }

    @Test(arguments: [0, 1, 18, 19, 20, 38, 39, 1000])
    func roundTrip(length: Int) throws {
        var r = try reassembler()
        let original = message(length)
        let chunks = try BLEChunker(attMTU: 23).chunks(of: original)
        for chunk in chunks.dropLast() { #expect(try r.append(chunk) == nil) }
        let last = try #require(chunks.last)
        #expect(try r.append(last) == original)
        #expect(!r.hasPartialMessage)
    }

    @Test func severalMessagesInARow() throws {
        var r = try reassembler()
        let chunker = try BLEChunker(attMTU: 23)
        for length in [5, 40, 0, 19] {
            var got: Data?
            for chunk in chunker.chunks(of: message(length, seed: UInt8(length % 255))) { got = try r.append(chunk) }
            #expect(got == message(length, seed: UInt8(length % 255)))
        }
    }

    @Test func shortNonFinalChunkIsAViolation() throws {
        var r = try reassembler()
        #expect(throws: TransportError.protocolViolation("non-final chunk shorter than the maximum (4 < 20)")) { _ = try r.append(Data([0x01, 1, 2, 3])) }
    }

    @Test func shortNonFinalChunkAcceptedWhenRelaxed() throws {
        var r = try reassembler(strict: false)
        #expect(try r.append(Data([0x01, 1, 2, 3])) == nil)
        #expect(try r.append(Data([0x00, 4])) == Data([1, 2, 3, 4]))
    }

    @Test(arguments: [UInt8(0x02), 0x05, 0x80, 0xFF])
    func unknownHeaderIsAViolation(header: UInt8) throws {
        var r = try reassembler()
        let expected = TransportError.protocolViolation("unknown chunk header \(String(format: "0x%02x", header))")
        #expect(throws: expected) { _ = try r.append(Data([header, 1, 2])) }
    }

    @Test func emptyAndOverlongChunksAreViolations() throws {
        var r = try reassembler()
        #expect(throws: TransportError.protocolViolation("empty chunk")) { _ = try r.append(Data()) }
        #expect(throws: TransportError.protocolViolation("chunk of 21 bytes longer than the maximum 20")) { _ = try r.append(Data(repeating: 0, count: 21)) }
    }

    @Test func sizeLimitCountsAcrossChunks() throws {
        let chunker = try BLEChunker(attMTU: 23)
        // Exactly at the limit: accepted.
        var r = try reassembler(limit: 40)
        var got: Data?
        for chunk in chunker.chunks(of: message(40)) { got = try r.append(chunk) }
        #expect(got == message(40))
        // One byte more: rejected on the chunk that crosses it.
        var small = try reassembler(limit: 40)
        let chunks = chunker.chunks(of: message(41))
        #expect(try small.append(chunks[0]) == nil)
        #expect(try small.append(chunks[1]) == nil)
        #expect(throws: TransportError.messageTooLarge(limit: 40)) { _ = try small.append(chunks[2]) }
        // A single final chunk over the limit.
        var tiny = try reassembler(limit: 3)
        #expect(throws: TransportError.messageTooLarge(limit: 3)) { _ = try tiny.append(Data([0x00, 1, 2, 3, 4])) }
    }
}
