import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Zeroes memory in a way the optimiser may not drop as a dead store before the memory is freed
/// (`memset_s` on Apple platforms, `explicit_bzero` on Linux).
func secureZero(_ bytes: UnsafeMutableRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    #if canImport(Darwin)
        _ = memset_s(base, bytes.count, 0, bytes.count)
    #elseif canImport(Glibc) || canImport(Musl)
        explicit_bzero(base, bytes.count)
    #else
        // No wipe primitive known here: a volatile-like byte loop through an opaque pointer.
        let p = base.assumingMemoryBound(to: UInt8.self)
        for i in 0..<bytes.count { p[i] = 0 }
    #endif
}

func secureZero<Element: FixedWidthInteger>(_ array: inout [Element]) {
    array.withUnsafeMutableBytes { secureZero($0) }
}

