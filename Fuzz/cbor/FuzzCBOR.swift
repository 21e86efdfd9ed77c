// libFuzzer target for TesseraCBOR. Built by `scripts/fuzz cbor SECONDS`, which compiles
// this file together with Sources/TesseraCBOR/*.swift into one module, so the
// library's internals are visible here without an import.
//
// Properties checked for every input (a violation calls `violation`, which aborts so
// that libFuzzer records the input as a crash artifact):
//   1. Decoding never crashes, whatever the mode or limits (ASan checks memory).
//   2. Strict round trip: if the strict decoder accepts the input, its deterministic
//      encoding E1 is accepted by the deterministic decoder, and re-encoding that value
//      gives E1 again (encodings are compared, never values: NaN != NaN, and float
//      widths are canonicalised by the encoder).
//   3. Deterministic fixpoint: if the deterministic decoder accepts the input, the
//      input is already in core deterministic form, so re-encoding gives it back
//      byte for byte (RFC 8949 §4.2.1).
//   4. Deterministic acceptance implies strict acceptance, with the same encoding.
//   5. Limits only reject: a decode under small limits (maxDepth 8, maxItems 100) that
//      succeeds gives the same encoding as the unlimited decode; an unlimited decode
//      that fails for a reason other than a limit fails under limits too.
//   6. decodePrefix agrees with decode (same value, or trailingBytes at the prefix's end,
//      or the same error).
//   7. Every error that reports an offset reports one inside the input (0...size).
//   8. diagnostic() (when the library has it: the script passes
//      -D TESSERA_FUZZ_HAS_DIAGNOSTIC) does not crash and is not empty.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private let limited = CBORDecodingOptions(deterministic: false, maxDepth: 8, maxItems: 100)
private let limitedDeterministic = CBORDecodingOptions(deterministic: true, maxDepth: 8, maxItems: 100)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // Decode straight from libFuzzer's buffer (no copy), so ASan sees any read past its end.
    let input = UnsafeRawBufferPointer(start: data, count: size)

    let strict = decode(input, .strict)
    let deterministic = decode(input, .deterministic)
    let small = decode(input, limited)
    let smallDeterministic = decode(input, limitedDeterministic)

    if case .success(let value) = strict { checkStrictRoundTrip(value, input) }

    if case .success(let value) = deterministic {
        let encoded = value.encodedBytes(options: .deterministic)
        if !encoded.elementsEqual(input) {
            violation("deterministic decode accepted input that does not re-encode to itself", input, encoded)
        }
        guard case .success(let strictValue) = strict else {
            violation("deterministic decode accepted input that strict decode rejected", input)
        }
        let strictEncoded = strictValue.encodedBytes(options: .deterministic)
        if strictEncoded != encoded {
            violation("strict and deterministic decodes of the same input encode differently", input, strictEncoded)
        }
    }

    checkLimits(small, unlimited: strict, input, "strict")
    checkLimits(smallDeterministic, unlimited: deterministic, input, "deterministic")

    checkPrefix(strict, input)
    return 0
}

// MARK: - Properties

private func checkStrictRoundTrip(_ value: CBOR, _ input: UnsafeRawBufferPointer) {
    let e1 = value.encodedBytes(options: .deterministic)
    #if TESSERA_FUZZ_HAS_DIAGNOSTIC
        if value.diagnostic().isEmpty { violation("diagnostic() returned an empty string", input) }
    #endif
    let again: CBOR
    do throws(CBORError) {
        again = try CBOR.decode(e1, options: .deterministic)
    } catch {
        violation("deterministic encoding of an accepted value is rejected by the deterministic decoder: \(error)", input, e1)
    }
    let e2 = again.encodedBytes(options: .deterministic)
    if e1 != e2 { violation("deterministic re-encoding is not a fixpoint", input, e1, e2) }
    // The value as held (keys in received order, float widths kept) must also be readable.
    let preserved = value.encodedBytes(options: .preserving)
    if case .failure(let error) = decode(preserved, .strict) {
        violation("preserving encoding of an accepted value is rejected: \(error)", input, preserved)
    }
}

/// decodePrefix agrees with decode: same value when the item spans the input, `trailingBytes`
/// at the prefix's end when it does not, and the same error when the first item is bad.
private func checkPrefix(_ strict: Result<CBOR, CBORError>, _ input: UnsafeRawBufferPointer) {
    let prefix = Result { () throws(CBORError) in try CBOR.decodePrefix(input, options: .strict) }
    switch (prefix, strict) {
    case (.success(let p), .success(let value)):
        if p.length != input.count {
            violation("decodePrefix length \(p.length) != input size \(input.count) for a full decode", input)
        }
        if p.value.encodedBytes(options: .deterministic) != value.encodedBytes(options: .deterministic) {
            violation("decodePrefix and decode give different values", input)
        }
    case (.success(let p), .failure(let error)):
        if p.length == input.count || error != .trailingBytes(offset: p.length) {
            violation("decodePrefix read \(p.length) of \(input.count) bytes but decode failed with \(error)", input)
        }
    case (.failure(let error), .success):
        violation("decodePrefix failed (\(error)) where decode succeeded", input)
    case (.failure(let e1), .failure(let e2)):
        if e1 != e2 { violation("decodePrefix and decode fail differently: \(e1) vs \(e2)", input) }
    }
}

private func checkLimits(
    _ small: Result<CBOR, CBORError>, unlimited: Result<CBOR, CBORError>, _ input: UnsafeRawBufferPointer,
    _ mode: String
) {
    switch (small, unlimited) {
    case (.success(let a), .success(let b)):
        if a.encodedBytes(options: .deterministic) != b.encodedBytes(options: .deterministic) {
            violation("\(mode): limited and unlimited decodes differ", input)
        }
    case (.success, .failure(let error)):
        violation("\(mode): limited decode accepted what the unlimited decode rejected (\(error))", input)
    case (.failure(let error), .failure):
        _ = error
    case (.failure(let error), .success):
        switch error {
        case .depthLimitExceeded, .itemLimitExceeded: break
        default: violation("\(mode): limited decode failed for a reason other than a limit: \(error)", input)
        }
    }
}

// MARK: - Helpers

private func decode(_ bytes: some ContiguousBytes, _ options: CBORDecodingOptions) -> Result<CBOR, CBORError> {
    let size = bytes.withUnsafeBytes { $0.count }
    do throws(CBORError) {
        return .success(try CBOR.decode(bytes, options: options))
    } catch {
        if let offset = error.offset, offset < 0 || offset > size {
            violation("error offset \(offset) outside the input of \(size) bytes: \(error)", [])
        }
        return .failure(error)
    }
}

private func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// Prints what went wrong and aborts, so that libFuzzer saves the input as a crash artifact.
private func violation(_ message: String, _ input: some Sequence<UInt8>, _ extra: [UInt8]...) -> Never {
    var text = "FUZZ PROPERTY VIOLATION: \(message)\n  input: \(hex(input))\n"
    for (i, bytes) in extra.enumerated() { text += "  encoding \(i + 1): \(hex(bytes))\n" }
    FileHandle.standardError.write(Data(text.utf8))
    abort()
}
