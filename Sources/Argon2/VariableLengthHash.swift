/// RFC 9106 §3.3: the variable-length hash function H'^T(A), built on BLAKE2b.
///
/// `input` feeds A to the hash (A is given in pieces, so that callers need not concatenate secrets into a
/// temporary buffer). The T = `output.count` bytes are written to `output`; intermediate digests are wiped.
func variableLengthHash(into output: UnsafeMutableRawBufferPointer, input: (inout BLAKE2b) -> Void) {
    let outputLength = output.count
    guard outputLength > 0 else { return }
    // The length prefix LE32(T). Callers pass at most 2^32 - 1 bytes (the tag length T is a UInt32).
    let lengthPrefix = UInt32(truncatingIfNeeded: outputLength)

    if outputLength <= BLAKE2b.maxDigestLength {
        // T <= 64: H^T(LE32(T) || A).
        var hash = BLAKE2b(digestLength: outputLength)
        hash.update(le32: lengthPrefix)
        input(&hash)
        var digest = hash.finalize()
        copy(digest, count: outputLength, to: output, at: 0)
        secureZero(&digest)
        return
    }

    // T > 64: r = ceil(T/32) - 2; V1 = H^64(LE32(T) || A), V(i) = H^64(V(i-1)) for 2 <= i <= r,
    // V(r+1) = H^(T-32r)(V(r)); the output is W1 || ... || Wr || V(r+1), Wi being the first 32 bytes of Vi.
    let r = (outputLength + 31) / 32 - 2
    var hash = BLAKE2b(digestLength: 64)
    hash.update(le32: lengthPrefix)
    input(&hash)
    var previous = hash.finalize()
    var written = 0
    for _ in 1..<r {
        copy(previous, count: 32, to: output, at: written)
        written += 32
        var next = BLAKE2b(digestLength: 64)
        next.update(previous)
        secureZero(&previous)
        previous = next.finalize()
    }
    copy(previous, count: 32, to: output, at: written)
    written += 32
    var last = BLAKE2b(digestLength: outputLength - 32 * r)
    last.update(previous)
    secureZero(&previous)
    var tail = last.finalize()
    copy(tail, count: tail.count, to: output, at: written)
    secureZero(&tail)
}

/// Copies the first `count` bytes of `bytes` to `output[offset...]`.
private func copy(_ bytes: [UInt8], count: Int, to output: UnsafeMutableRawBufferPointer, at offset: Int) {
    bytes.withUnsafeBytes { source in
        UnsafeMutableRawBufferPointer(rebasing: output[offset..<offset + count])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<count]))
    }
}
