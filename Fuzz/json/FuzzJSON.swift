// libFuzzer target for TesseraJOSE's strict JSON parser, compiled with plain swiftc together with
// Sources/TesseraJOSE/JSON (no package dependencies): `scripts/fuzz json SECONDS`.
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. Parsing never crashes (ASan checks memory); errors carry offsets inside the input.
//   2. An accepted value serializes to JSON that parses to an equal value, and serialization is a fixpoint.
//   3. Limits only reject: what parses under small limits parses equally under the defaults.
//   4. Text, Data and non-contiguous collections parse the same.
//   5. The short-array reader agrees with the full parser: the same error, nil for a value that is not an array,
//      and for an array its count and first elements.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func violation(_ message: String, _ input: Data) -> Never {
    let hex = input.prefix(512).map { String(format: "%02x", $0) }.joined()
    FileHandle.standardError.write(Data("FUZZ PROPERTY VIOLATION (json): \(message)\ninput: \(hex)\n".utf8))
    abort()
}

private let small = JSONLimits(maxBytes: 4096, maxDepth: 8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    let short = Result { () throws(JSONError) -> JSONShortArray? in
        try JSONParser.parseShortArray(UnsafeBufferPointer(start: data, count: size), limits: .default)
    }
    let value: JSONValue
    do {
        value = try JSONValue.parse(input)
    } catch {
        if case .failure(let shortError) = short, shortError == error {} else {
            violation("the short-array reader did not fail as the parser did (\(error))", input)
        }
        if let offset = error.offset, offset < 0 || offset > input.count { violation("error offset \(offset) outside the input: \(error)", input) }
        if (try? JSONValue.parse(input, limits: small)) != nil { violation("small limits accepted what the defaults rejected", input) }
        return 0
    }
    switch (short, value.arrayValue) {
    case (.success(nil), nil): break
    case (.success(let array?), let elements?):
        guard array.count == elements.count,
            (0..<JSONShortArray.capacity).allSatisfy({ array[$0] == (elements.indices.contains($0) ? elements[$0] : Optional<JSONValue>.none) })
        else { violation("the short-array reader disagrees with the parser on an array", input) }
    default: violation("the short-array reader disagrees with the parser on the kind of value", input)
    }
    let text = value.serialized()
    do {
        let again = try JSONValue.parse(text)
        if again != value { violation("serialization does not parse to an equal value", input) }
        if again.serialized() != text { violation("serialization is not a fixpoint", input) }
    } catch {
        violation("serialization does not parse: \(error)", input)
    }
    if let limited = try? JSONValue.parse(input, limits: small), limited != value { violation("limits changed the value", input) }
    if (try? JSONValue.parse(Array(input).reversed().reversed())) != value { violation("non-contiguous input parsed differently", input) }
    return 0
}
