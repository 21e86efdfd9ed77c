// libFuzzer target for the ISO 18013-5 parsers of MDoc. One binary serves four targets; the
// structure comes from TESSERA_FUZZ_STRUCTURE (engagement, establishment, request, response),
// which `scripts/fuzz mdoc-<structure>` sets.
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. Parsing never crashes (ASan checks memory) and fails only with MDocError.
//   2. A parsed structure re-encodes to bytes that parse to an equal structure.
//   3. For DeviceEngagement, the mdoc: QR URI of the input carries exactly the input bytes.
//   4. For DeviceResponse, every document's MSO, mDL elements and digest inputs can be
//      computed without crashing.
//   5. For DeviceRequest and SessionEstablishment, the reading without a tree gives up or gives the tree's
//      value (down to each decoded embedded item); it never accepts what the tree refuses.

import Foundation
import FuzzSupport
@_spi(Fuzzing) import MDoc
import TesseraCBOR

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private enum Structure: String {
    case engagement, establishment, request, response
}

private let structure: Structure = {
    let name = ProcessInfo.processInfo.environment["TESSERA_FUZZ_STRUCTURE"] ?? ""
    guard let s = Structure(rawValue: name) else {
        FileHandle.standardError.write(Data("FuzzMDoc: set TESSERA_FUZZ_STRUCTURE to engagement, establishment, request or response\n".utf8))
        exit(2)
    }
    return s
}()

private func violation(_ message: String) -> Never {
    FileHandle.standardError.write(Data("FUZZ PROPERTY VIOLATION (\(structure.rawValue)): \(message)\n".utf8))
    abort()
}

/// Re-encodes a parsed structure and parses it again: it must come back equal.
private func roundTrip<T: Equatable>(_ value: T, encode: (T) throws(MDocError) -> Data, parse: (Data) throws(MDocError) -> T) {
    do {
        let again = try parse(try encode(value))
        if again != value { violation("re-encoded \(T.self) parses to a different value") }
    } catch {
        violation("re-encoded \(T.self) does not parse: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    switch structure {
    case .engagement:
        guard let engagement = try? DeviceEngagement(bytes: bytes) else { return 0 }
        roundTrip(engagement, encode: { (e: DeviceEngagement) throws(MDocError) in try e.encoded().bytes }, parse: { (d: Data) throws(MDocError) in try DeviceEngagement(bytes: d) })
        guard let scanned = try? MDocQRCode.parse(MDocQRCode.uri(for: bytes)), scanned.bytes == bytes else {
            violation("QR URI does not carry the engagement bytes")
        }
    case .establishment:
        if let fast = SessionEstablishment.readWithoutTree(bytes) {
            guard let tree = try? SessionEstablishment.readThroughTree(bytes) else { violation("read without a tree, refused by the tree") }
            guard fast == tree, fast.eReaderKey.value == tree.eReaderKey.value else { violation("the reading without a tree differs from the tree's") }
        }
        guard let establishment = try? SessionEstablishment(bytes: bytes) else { return 0 }
        roundTrip(establishment, encode: { (e: SessionEstablishment) throws(MDocError) in try e.encoded() }, parse: { (d: Data) throws(MDocError) in try SessionEstablishment(bytes: d) })
    case .request:
        if let fast = DeviceRequest.readWithoutTree(bytes) {
            guard let tree = try? DeviceRequest.readThroughTree(bytes) else { violation("read without a tree, refused by the tree") }
            guard fast == tree, fast.docRequests.map({ $0.itemsRequest.value }) == tree.docRequests.map({ $0.itemsRequest.value })
            else { violation("the reading without a tree differs from the tree's") }
        }
        guard let request = try? DeviceRequest(bytes: bytes) else { return 0 }
        roundTrip(request, encode: { (r: DeviceRequest) throws(MDocError) in try r.encoded() }, parse: { (d: Data) throws(MDocError) in try DeviceRequest(bytes: d) })
        for docRequest in request.docRequests { _ = docRequest.itemsRequest.value.requestedElements }
    case .response:
        guard let response = try? DeviceResponse(bytes: bytes) else { return 0 }
        roundTrip(response, encode: { (r: DeviceResponse) throws(MDocError) in try r.encoded() }, parse: { (d: Data) throws(MDocError) in try DeviceResponse(bytes: d) })
        for document in response.documents ?? [] {
            _ = try? document.issuerSigned.mobileSecurityObject()
            for (namespace, items) in document.issuerSigned.nameSpaces ?? [:] {
                var elements: [String: CBOR] = [:]
                for item in items {
                    _ = DigestAlgorithm.sha256.digest(CBOR.encodeTag24(item.bytes))
                    elements[item.value.elementIdentifier] = item.value.elementValue
                }
                if namespace == MDL.namespace { _ = try? MDLData(elements: elements) }
            }
        }
    }
    return 0
}

@_cdecl("FuzzMDoc_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
