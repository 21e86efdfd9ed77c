// What the SwiftPM fuzz targets share: the hand-over to libFuzzer's driver, the property-violation report, the
// structure chosen by TESSERA_FUZZ_STRUCTURE, and a reader of fields off the front of an input.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

public enum FuzzDriver {
    /// SwiftPM links an executable target with `main` aliased to `<Module>_main`, so libFuzzer's own `main` is not
    /// pulled in; a target's `<Module>_main` calls this to hand control to libFuzzer's driver instead.
    public static func run(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, callback)
    }

    /// The structure named by TESSERA_FUZZ_STRUCTURE (which `scripts/fuzz <target>` sets); exits 2 naming the
    /// choices when it names none.
    public static func structure<S: RawRepresentable & CaseIterable>(_ type: S.Type, program: String) -> S where S.RawValue == String {
        let name = ProcessInfo.processInfo.environment["TESSERA_FUZZ_STRUCTURE"] ?? ""
        guard let structure = S(rawValue: name) else {
            let choices = S.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("\(program): set TESSERA_FUZZ_STRUCTURE to one of \(choices)\n".utf8))
            exit(2)
        }
        return structure
    }

    /// A property failed: report it with the input's first 512 bytes in hex and abort, so libFuzzer keeps the input.
    public static func violation(_ target: String, _ message: String, _ input: Data) -> Never {
        let hex = input.prefix(512).map { String(format: "%02x", $0) }.joined()
        FileHandle.standardError.write(Data("FUZZ PROPERTY VIOLATION (\(target)): \(message)\ninput: \(hex)\n".utf8))
        abort()
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Reads fields off the front of a fuzz input; nil when it is too short.
public struct FuzzFields {
    public var rest: Data

    public init(_ input: Data) { rest = input }

    public mutating func take(_ count: Int) -> Data? {
        guard count >= 0, rest.count >= count else { return nil }
        defer { rest = rest.dropFirst(count) }
        return Data(rest.prefix(count))
    }

    /// `count` bytes as a big-endian unsigned integer.
    public mutating func integer(_ count: Int) -> UInt64? { take(count)?.reduce(0) { $0 << 8 | UInt64($1) } }
}
