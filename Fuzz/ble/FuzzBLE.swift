// libFuzzer target for the bytes ProximityTransport receives from a peer, compiled with plain swiftc together
// with Sources/ProximityTransport (Foundation only): `scripts/fuzz ble SECONDS`.
//
// Input: byte 0 picks the ATT_MTU (23 … 533); the rest is read three ways.
//   1. As received chunks ([length][bytes] …) fed to BLEReassembler: never crashes, every message it returns
//      is within the size limit, and an error ends the stream.
//   2. As a message: chunked by BLEChunker and reassembled, it comes back unchanged in the expected chunk count.
//   3. As a loopback socket stream fed to LoopbackFrameBuffer: never crashes, frames stay within their limit.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func violation(_ message: String, _ input: Data) -> Never {
    let hex = input.prefix(512).map { String(format: "%02x", $0) }.joined()
    FileHandle.standardError.write(Data("FUZZ PROPERTY VIOLATION (ble): \(message)\ninput: \(hex)\n".utf8))
    abort()
}

private let limit = 4096

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    guard let first = input.first else { return 0 }
    let body = input.dropFirst()
    guard let chunker = try? BLEChunker(attMTU: 23 + Int(first) * 2) else { return 0 }

    // 1. Received chunks.
    var reassembler = BLEReassembler(chunker: chunker, maximumMessageSize: limit, requireFullNonFinalChunks: first & 1 == 0)
    var index = body.startIndex
    while index < body.endIndex {
        let length = Int(body[index])
        let start = body.index(after: index)
        let end = min(start + length, body.endIndex)
        do {
            if let message = try reassembler.append(Data(body[start..<end])), message.count > limit {
                violation("message of \(message.count) bytes over the limit", input)
            }
        } catch {
            break
        }
        index = end
    }

    // 2. Round trip.
    let message = Data(body.prefix(limit))
    var receiver = BLEReassembler(chunker: chunker, maximumMessageSize: limit, requireFullNonFinalChunks: true)
    let chunks = chunker.chunks(of: message)
    var result: Data?
    for (n, chunk) in chunks.enumerated() {
        do {
            let out = try receiver.append(chunk)
            if out != nil && n != chunks.count - 1 { violation("message completed before its last chunk", input) }
            result = out
        } catch {
            violation("own chunks rejected: \(error)", input)
        }
    }
    if result != message { violation("round trip changed the message", input) }

    // 3. Loopback frames.
    var frames = LoopbackFrameBuffer()
    frames.append(ArraySlice(body))
    while true {
        do {
            guard (try frames.next()) != nil else { break }
        } catch {
            break
        }
    }
    return 0
}
