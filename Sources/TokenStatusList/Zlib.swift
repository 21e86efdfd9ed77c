import CZlib

/// The ZLIB data format (RFC 1950, DEFLATE RFC 1951) through the system zlib, as the Token Status List requires
/// for `lst` (TSL §4.1).
package enum Zlib {
    /// Whether the linked zlib is the classic one (Debian's, Apple's), not zlib-ng: only classic zlib reproduces a
    /// given compressed stream byte for byte (zlib-ng's DEFLATE makes other, equally valid streams), so only then
    /// can the draft's example bytes be compared exactly.
    package static var isClassic: Bool { !String(cString: zlibVersion()).contains("zlib-ng") }

    /// ZLIB-compresses `bytes` at the best compression level (TSL §4.1 recommends it; header `78 DA`).
    static func compress(_ bytes: [UInt8]) throws(StatusListError) -> [UInt8] {
        var capacity = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(capacity))
        let status = out.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &capacity, source.baseAddress, uLong(source.count), Z_BEST_COMPRESSION)
            }
        }
        guard status == Z_OK else { throw .invalidCompression("zlib compress failed (\(status))") }
        out.removeLast(out.count - Int(capacity))
        return out
    }

    /// Decompresses exactly one ZLIB stream (header, DEFLATE data, Adler-32 check) making up all of `bytes`,
    /// producing at most `maxOutput` bytes.
    static func decompress(_ bytes: [UInt8], maxOutput: Int) throws(StatusListError) -> [UInt8] {
        guard !bytes.isEmpty else { throw .invalidCompression("empty zlib data") }
        guard bytes.count <= Int(UInt32.max) else { throw .invalidCompression("zlib data longer than 4 GiB") }
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .invalidCompression("zlib inflateInit failed")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        let chunk = 16 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        var status: Int32 = Z_OK
        var input = bytes
        status = input.withUnsafeMutableBufferPointer { source -> Int32 in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            var result: Int32 = Z_OK
            while result == Z_OK {
                result = buffer.withUnsafeMutableBufferPointer { target -> Int32 in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    let code = inflate(&stream, Z_NO_FLUSH)
                    let produced = target.count - Int(stream.avail_out)
                    if produced > 0 { output.append(contentsOf: target[0..<produced]) }
                    return code
                }
                if output.count > maxOutput { return Z_MEM_ERROR }
                // No progress possible: the input ended before the stream did.
                if result == Z_OK, stream.avail_in == 0, stream.avail_out != 0 { return Z_BUF_ERROR }
            }
            if result == Z_STREAM_END, stream.avail_in != 0 { return Z_DATA_ERROR }
            return result
        }
        switch status {
        case Z_STREAM_END: return output
        case Z_MEM_ERROR: throw .listTooLarge(limit: maxOutput)
        case Z_BUF_ERROR: throw .invalidCompression("zlib data truncated")
        default: throw .invalidCompression("not zlib data (\(status))")
        }
    }
}
