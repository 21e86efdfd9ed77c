// libFuzzer target for the compact JWS and JWE parsers of TesseraJOSE. One binary serves two targets; the
// structure comes from TESSERA_FUZZ_STRUCTURE (jws, jwe), which `scripts/fuzz jws|jwe` sets.
//
// Input: first byte even → the rest is the compact serialization as text; odd → the rest is the protected
// header JSON, wrapped into an otherwise well-formed compact serialization (so mutations reach the header
// rules instead of dying in base64url).
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. Parsing never crashes (ASan checks memory); errors are typed JOSEError.
//   2. Strict base64url: every decoded segment re-encodes to exactly the received segment.
//   3. JWS: the signing input is exactly the text before the second dot; the header re-serializes to JSON
//      that parses to an equal header; verification with an unrelated key fails without crashing; x5c and
//      payload JSON reads run.
//   4. JWE: decryption with a fixed recipient key fails (the input was not made for it) with one of the
//      key-independent errors or decryptionFailed; for a parsed header, a fresh encryption of the input
//      bytes to that key decrypts back to them.

import Crypto
import Foundation
import FuzzSupport
import TesseraCore
import TesseraJOSE

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private enum Structure: String {
    case jws, jwe
}

private let structure: Structure = {
    let name = ProcessInfo.processInfo.environment["TESSERA_FUZZ_STRUCTURE"] ?? ""
    guard let s = Structure(rawValue: name) else {
        FileHandle.standardError.write(Data("FuzzJOSE: set TESSERA_FUZZ_STRUCTURE to jws or jwe\n".utf8))
        exit(2)
    }
    return s
}()

private func violation(_ message: String, _ input: Data) -> Never {
    let hex = input.prefix(512).map { String(format: "%02x", $0) }.joined()
    FileHandle.standardError.write(Data("FUZZ PROPERTY VIOLATION (\(structure.rawValue)): \(message)\ninput: \(hex)\n".utf8))
    abort()
}

/// A fixed, unrelated verification key (P-256 from a constant scalar).
private let unrelatedKey: JWSVerificationKey = {
    let scalar = Data((1...32).map { UInt8($0) })
    guard let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) else { exit(3) }
    return .es256(key.publicKey)
}()

/// A fixed recipient for JWE decryption.
private let recipient: JWEKeyAgreementKey = {
    guard let key = try? JWEKeyAgreementKey.generate(.p256, random: SeededRandomSource(seed: 42)) else { exit(3) }
    return key
}()

private func segments(_ text: String) -> [Substring] { text.split(separator: ".", omittingEmptySubsequences: false) }

private func checkCanonicalBase64(_ segment: Substring, _ decoded: Data, _ input: Data) {
    if Base64URL.encode(decoded) != segment { violation("segment does not re-encode to itself: \(segment.prefix(80))", input) }
}

private func compactText(from input: Data, parts: Int) -> String {
    guard let mode = input.first else { return "" }
    let body = input.dropFirst()
    if mode & 1 == 0 { return String(decoding: body, as: UTF8.self) }
    let header = Base64URL.encode(body)
    if parts == 3 {
        return header + "." + Base64URL.encode(Data("{}".utf8)) + "." + Base64URL.encode(Data(repeating: 7, count: 64))
    }
    return header + ".." + Base64URL.encode(Data(repeating: 1, count: 12)) + "." + Base64URL.encode(Data([1, 2, 3])) + "."
        + Base64URL.encode(Data(repeating: 2, count: 16))
}

private func fuzzJWS(_ input: Data) {
    let text = compactText(from: input, parts: 3)
    guard let jws = try? CompactJWS(parsing: text) else { return }
    let parts = segments(text)
    guard parts.count == 3 else { violation("parsed a JWS that does not have three segments", input) }
    if jws.signingInput != text[..<(parts[1].endIndex)] { violation("signing input differs from the received text", input) }
    checkCanonicalBase64(parts[1], jws.payload, input)
    checkCanonicalBase64(parts[2], jws.signature, input)
    do {
        let reparsed = try JSONValue.parse(jws.header.serialized())
        if reparsed != .object(jws.header) { violation("header does not survive re-serialization", input) }
    } catch {
        violation("re-serialized header does not parse: \(error)", input)
    }
    if (try? jws.verify(with: unrelatedKey)) != nil { violation("an unrelated key verified the JWS", input) }
    _ = try? jws.payloadJSON()
    _ = try? jws.x5cCertificates()
}

private func fuzzJWE(_ input: Data) {
    let text = compactText(from: input, parts: 5)
    guard let jwe = try? CompactJWE(parsing: text) else { return }
    let parts = segments(text)
    guard parts.count == 5, parts[1].isEmpty else { violation("parsed a JWE without five segments and an empty key", input) }
    checkCanonicalBase64(parts[2], jwe.initializationVector, input)
    checkCanonicalBase64(parts[3], jwe.ciphertext, input)
    checkCanonicalBase64(parts[4], jwe.authenticationTag, input)
    do {
        _ = try jwe.decrypt(with: recipient)
        violation("a JWE not made for the fixed recipient decrypted", input)
    } catch .decryptionFailed, .ephemeralKeyCurveMismatch {
    } catch {
        violation("decryption failed with an unexpected error: \(error)", input)
    }
    // Round trip with the parsed enc and party info, the input bytes as plaintext.
    do {
        let fresh = try CompactJWE.encrypt(
            input, to: recipient.publicJWK, enc: jwe.encryption, apu: jwe.agreementPartyUInfo, apv: jwe.agreementPartyVInfo,
            random: SeededRandomSource(seed: UInt64(input.count)))
        if try CompactJWE(parsing: fresh.compact).decrypt(with: recipient) != input { violation("round trip changed the plaintext", input) }
    } catch {
        violation("round trip failed: \(error)", input)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    switch structure {
    case .jws: fuzzJWS(input)
    case .jwe: fuzzJWE(input)
    }
    return 0
}

@_cdecl("FuzzJOSE_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
