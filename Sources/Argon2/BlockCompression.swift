/// A 1024-byte Argon2 block as 128 little-endian 64-bit words.
let blockWordCount = 128

/// RFC 9106 §3.5: the compression function G(X, Y) on 1024-byte blocks, written to `result`.
///
/// R = X xor Y; P is applied to the eight rows of R (Q), then to its eight columns (Z); G = Z xor R.
/// With `xorIntoResult` (version 0x13 after the first pass, §3.2 step 6) the old content of `result` is
/// xored in as well. `r` and `t` are two scratch blocks of the caller, so that no block is allocated here.
@inline(__always)
func compress(
    _ x: UnsafePointer<UInt64>, _ y: UnsafePointer<UInt64>, into result: UnsafeMutablePointer<UInt64>,
    xorIntoResult: Bool, scratchR r: UnsafeMutablePointer<UInt64>, scratchT t: UnsafeMutablePointer<UInt64>
) {
    if xorIntoResult {
        for i in 0..<blockWordCount {
            let value = x[i] ^ y[i]
            r[i] = value
            t[i] = value ^ result[i]
        }
    } else {
        for i in 0..<blockWordCount {
            let value = x[i] ^ y[i]
            r[i] = value
            t[i] = value
        }
    }
    // Rows: row i is the 16 consecutive words 16i..<16i+16 (registers of two words each).
    for row in 0..<8 { permute(r + 16 * row, registerStride: 2) }
    // Columns: column i takes words 2i and 2i+1 from each row.
    for column in 0..<8 { permute(r + 2 * column, registerStride: 16) }
    for i in 0..<blockWordCount { result[i] = t[i] ^ r[i] }
}

/// RFC 9106 §3.6: the permutation P on eight 16-byte registers S0...S7, register k being the two words at
/// `base[registerStride * k]` and `base[registerStride * k + 1]` (v(2k) and v(2k+1)).
@inline(__always)
private func permute(_ base: UnsafeMutablePointer<UInt64>, registerStride s: Int) {
    var v0 = base[0]
    var v1 = base[1]
    var v2 = base[s]
    var v3 = base[s + 1]
    var v4 = base[2 * s]
    var v5 = base[2 * s + 1]
    var v6 = base[3 * s]
    var v7 = base[3 * s + 1]
    var v8 = base[4 * s]
    var v9 = base[4 * s + 1]
    var v10 = base[5 * s]
    var v11 = base[5 * s + 1]
    var v12 = base[6 * s]
    var v13 = base[6 * s + 1]
    var v14 = base[7 * s]
    var v15 = base[7 * s + 1]

    mixBlaMka(&v0, &v4, &v8, &v12)
    mixBlaMka(&v1, &v5, &v9, &v13)
    mixBlaMka(&v2, &v6, &v10, &v14)
    mixBlaMka(&v3, &v7, &v11, &v15)
    mixBlaMka(&v0, &v5, &v10, &v15)
    mixBlaMka(&v1, &v6, &v11, &v12)
    mixBlaMka(&v2, &v7, &v8, &v13)
    mixBlaMka(&v3, &v4, &v9, &v14)

    base[0] = v0
    base[1] = v1
    base[s] = v2
    base[s + 1] = v3
    base[2 * s] = v4
    base[2 * s + 1] = v5
    base[3 * s] = v6
    base[3 * s + 1] = v7
    base[4 * s] = v8
    base[4 * s + 1] = v9
    base[5 * s] = v10
    base[5 * s + 1] = v11
    base[6 * s] = v12
    base[6 * s + 1] = v13
    base[7 * s] = v14
    base[7 * s + 1] = v15
}

/// RFC 9106 §3.6: GB, BLAKE2b's G with each addition a + b replaced by a + b + 2 * trunc(a) * trunc(b)
/// (trunc = the low 32 bits), which makes the function costlier to speed up in hardware.
@inline(__always)
private func mixBlaMka(_ a: inout UInt64, _ b: inout UInt64, _ c: inout UInt64, _ d: inout UInt64) {
    a = a &+ b &+ 2 &* (a & 0xffff_ffff) &* (b & 0xffff_ffff)
    d = (d ^ a).rotatedRight(by: 32)
    c = c &+ d &+ 2 &* (c & 0xffff_ffff) &* (d & 0xffff_ffff)
    b = (b ^ c).rotatedRight(by: 24)
    a = a &+ b &+ 2 &* (a & 0xffff_ffff) &* (b & 0xffff_ffff)
    d = (d ^ a).rotatedRight(by: 16)
    c = c &+ d &+ 2 &* (c & 0xffff_ffff) &* (d & 0xffff_ffff)
    b = (b ^ c).rotatedRight(by: 63)
}
