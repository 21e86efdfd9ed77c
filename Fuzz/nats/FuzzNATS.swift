// libFuzzer target for the NATSClient parsers. One binary serves two targets; the structure comes from
// TESSERA_FUZZ_STRUCTURE, which `scripts/fuzz <structure>` sets:
//
//   nats-protocol  split (2, big-endian) ‖ bytes from the server. The bytes are parsed whole and again in two
//                  chunks cut at `split % (count + 1)`, under small limits (control line 256, payload 1024).
//   nats-jwt       kind (1: 0 user, 1 account, 2 operator, 3 creds file, 4 nkey seed, 5 nkey public key) ‖ text.
//
// Seeds: Fuzz/nats/seeds/<structure>/ (protocol streams as nats-server 2.9 writes them; JWTs, creds and nkeys
// minted by the module with a seeded random source).
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. Parsing never crashes (ASan checks memory); failures are `NATSError`.
//   2. Chunking does not matter: whole and two-chunk parsing give the same operations and the same error.
//   3. A failure is sticky: `next()` after an error throws the same error.
//   4. No message exceeds the payload limit; no operation is produced from bytes beyond the input.
//   5. A parsed MSG/HMSG written back with the client's PUB/HPUB framing (as MSG) parses to the same message.
//   6. JWT/creds/nkey decoding is deterministic, and a decoded seed re-encodes to the same text.

import Foundation
import FuzzSupport
import NATSClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private enum Structure: String, CaseIterable {
    case natsProtocol = "nats-protocol"
    case natsJWT = "nats-jwt"
}

private let structure = FuzzDriver.structure(Structure.self, program: "FuzzNATS")

private func violation(_ message: String, _ input: Data) -> Never {
    FuzzDriver.violation("\(structure.rawValue)", message, input)
}

private let limits = NATSProtocolParser.Limits(maxControlLine: 256, maxPayload: 1024)

/// Every operation of `chunks` fed in order, and the error that stopped parsing (checked to be sticky).
private func parse(_ chunks: [ArraySlice<UInt8>], _ input: Data) -> ([ServerOperation], NATSError?) {
    var parser = NATSProtocolParser(limits: limits)
    var operations: [ServerOperation] = []
    for chunk in chunks {
        parser.append(chunk)
        do {
            while let operation = try parser.next() { operations.append(operation) }
        } catch {
            do {
                _ = try parser.next()
                violation("parsing went on after \(error)", input)
            } catch let again {
                if again != error { violation("a second next() threw \(again) after \(error)", input) }
            }
            return (operations, error)
        }
    }
    return (operations, nil)
}

/// The message framed as the server would send it (MSG, or HMSG when it carried headers or a status).
private func reframe(_ message: InboundMessage, headerBytes: [UInt8]?) -> [UInt8] {
    var out = Array("\(headerBytes == nil ? "MSG" : "HMSG") \(message.subject) \(message.sid)".utf8)
    if let replyTo = message.replyTo { out += Array(" \(replyTo)".utf8) }
    if let headerBytes {
        out += Array(" \(headerBytes.count) \(headerBytes.count + message.payload.count)\r\n".utf8) + headerBytes
    } else {
        out += Array(" \(message.payload.count)\r\n".utf8)
    }
    return out + Array(message.payload) + [13, 10]
}

private func fuzzProtocol(_ input: Data) {
    guard input.count >= 2 else { return }
    let split = Int(input[input.startIndex]) << 8 | Int(input[input.startIndex + 1])
    let bytes = Array(input.dropFirst(2))
    let whole = parse([bytes[...]], input)
    let cut = split % (bytes.count + 1)
    let chunked = parse([bytes[..<cut], bytes[cut...]], input)
    if whole.0 != chunked.0 || whole.1 != chunked.1 {
        violation("whole \(whole.0.count) ops/\(String(describing: whole.1)) vs chunked at \(cut) \(chunked.0.count) ops/\(String(describing: chunked.1))", input)
    }
    for operation in whole.0 {
        guard case .message(let message) = operation else { continue }
        if message.payload.count > limits.maxPayload { violation("payload above the limit", input) }
        // Property 5, for messages without headers (a header block's exact bytes are not kept by the parser).
        if message.headers == nil, message.status == nil {
            let (again, error) = parse([reframe(message, headerBytes: nil)[...]], input)
            if error == nil, again != [.message(message)] { violation("a reframed MSG parses differently", input) }
        }
    }
}

private func fuzzJWT(_ input: Data) {
    guard let kind = input.first else { return }
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    func twice<T>(_ decode: () throws -> T, same: (T, T) -> Bool) {
        let first = Result { try decode() }
        let second = Result { try decode() }
        switch (first, second) {
        case (.success(let a), .success(let b)): if !same(a, b) { violation("decoding differs between runs", input) }
        case (.failure(let a), .failure(let b)):
            guard let a = a as? NATSError, let b = b as? NATSError else { violation("a non-NATSError failure", input) }
            if a != b { violation("errors differ between runs: \(a) / \(b)", input) }
        default: violation("decoding succeeded once and failed once", input)
        }
    }
    switch kind % 6 {
    case 0: twice({ try NATSJWT<UserClaims>(text) }, same: { $0.claims == $1.claims })
    case 1: twice({ try NATSJWT<AccountClaims>(text) }, same: { $0.claims == $1.claims })
    case 2: twice({ try NATSJWT<OperatorClaims>(text) }, same: { $0.claims == $1.claims })
    case 3: twice({ try NATSCredentials(credsFile: text) }, same: { $0.jwt == $1.jwt && $0.userKey.publicKeyString == $1.userKey.publicKeyString })
    case 4:
        twice({ try NKeyPair(seed: text) }, same: { $0.publicKeyString == $1.publicKeyString })
        if let pair = try? NKeyPair(seed: text), pair.seedString != text.trimmingCharacters(in: .whitespacesAndNewlines) {
            violation("a seed does not re-encode to itself", input)
        }
    default: twice({ try NKeyPair(publicKey: text) }, same: { $0.publicKeyString == $1.publicKeyString })
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    switch structure {
    case .natsProtocol: fuzzProtocol(input)
    case .natsJWT: fuzzJWT(input)
    }
    return 0
}

@_cdecl("FuzzNATS_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
