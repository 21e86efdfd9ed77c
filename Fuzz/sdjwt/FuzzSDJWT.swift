// libFuzzer target for the SD-JWT parser and Disclosure processing of the SDJWT module (`scripts/fuzz sdjwt`), and
// with TESSERA_FUZZ_STRUCTURE=status-list for the Token Status List readers (`scripts/fuzz status-list`, see
// FuzzStatusList.swift).
//
// sdjwt input: the first byte picks the mode.
//   even → the rest is an SD-JWT as text (compact `~` form, or the §8 JSON serialization), parsed with small
//          limits and verified (fixed issuer key, Key Binding checked when present).
//   odd  → the rest is split at 0x00 bytes: the first part is an Issuer-signed JWT payload (JSON), the others are
//          Disclosure arrays (JSON). Every string "@k" (k one digit) in the payload, or in Disclosure i for k > i,
//          is replaced by the digest of Disclosure k, so mutations reach recursive and array-element Disclosures;
//          the parts are assembled into `<header>.<payload>.<signature>~<D1>~…~` (the signature is not checked here).
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. Nothing crashes (ASan checks memory); every error is an SDJWTError.
//   2. A parsed compact SD-JWT serializes back to exactly the received text, every Disclosure keeps its received
//      string, and reparsing the serialization gives the same Disclosures and KB-JWT.
//   3. Processed claims contain no `_sd` member and no `{"...": digest}` array element; `_sd_alg` is gone.
//   4. Presenting any top-level claim (all Disclosures inside it) yields a presentation whose processed claims
//      hold exactly that claim's value; the presentation reparses and ends with `~`.
//   5. Verification never reports success for an input signed by nobody (mode odd), and never crashes (mode even).

import Crypto
import Foundation
import FuzzSupport
import SDJWT
import TesseraCore
import TesseraJOSE

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func violation(_ message: String, _ input: Data) -> Never {
    let hex = input.prefix(512).map { String(format: "%02x", $0) }.joined()
    FileHandle.standardError.write(Data("FUZZ PROPERTY VIOLATION (sdjwt): \(message)\ninput: \(hex)\n".utf8))
    abort()
}

private let limits = SDJWTLimits(
    maxLength: 1 << 16, maxDisclosures: 64, maxDepth: 16,
    jose: JOSELimits(maxCompactLength: 1 << 16, json: JSONLimits(maxBytes: 1 << 16, maxDepth: 16)))

private let issuerKey: JWSVerificationKey = {
    let scalar = Data((1...32).map { UInt8($0) })
    guard let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) else { exit(3) }
    return .es256(key.publicKey)
}()

private let clock = FixedClock(Date(timeIntervalSince1970: 1_700_000_000))

/// Runs an async verification to completion from the synchronous fuzz callback.
private func verifyBlocking(_ sdJWT: SDJWT) -> SDJWTVerificationOutcome {
    let policy = SDJWTVerificationPolicy(
        issuerKeySource: .key(issuerKey), requireKeyBinding: false, expectedAudience: "a", expectedNonce: "n",
        limits: limits)
    let box = OutcomeBox()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.set(await SDJWTVerifier(policy: policy, clock: clock).verify(sdJWT))
        done.signal()
    }
    done.wait()
    guard let outcome = box.get() else { exit(4) }
    return outcome
}

private final class OutcomeBox: @unchecked Sendable {  // written once by the task, read after the semaphore
    private var outcome: SDJWTVerificationOutcome?
    private let lock = NSLock()
    func set(_ value: SDJWTVerificationOutcome) { lock.lock(); outcome = value; lock.unlock() }
    func get() -> SDJWTVerificationOutcome? { lock.lock(); defer { lock.unlock() }; return outcome }
}

private func hasDigestMarkers(_ value: JSONValue) -> Bool {
    switch value {
    case .object(let object):
        if object.contains("_sd") { return true }
        return object.contains { hasDigestMarkers($0.value) }
    case .array(let array):
        return array.contains { element in
            if case .object(let object) = element, object.count == 1, object.contains("...") { return true }
            return hasDigestMarkers(element)
        }
    default:
        return false
    }
}

private func checkClaims(_ sdJWT: SDJWT, _ input: Data) {
    let claims: JSONObject
    do {
        claims = try sdJWT.unverifiedClaims(limits: limits)
    } catch {
        return
    }
    if claims.contains("_sd_alg") { violation("_sd_alg left in the processed claims", input) }
    if hasDigestMarkers(.object(claims)) { violation("digests left in the processed claims", input) }
    for key in claims.keys.prefix(4) {
        guard let pointer = try? ClaimsPathPointer(keys: key) else { violation("a key is not a path", input) }
        let presented: SDJWT
        do {
            presented = try SDJWTPresentation.presentation(sdJWT, disclosing: [pointer])
        } catch {
            violation("presenting the existing claim \(key) failed: \(error)", input)
        }
        guard presented.compact.hasSuffix("~"), let reparsed = try? SDJWT(parsing: presented.compact, limits: limits) else {
            violation("the presentation does not reparse", input)
        }
        guard let shown = try? reparsed.unverifiedClaims(limits: limits) else {
            violation("the presentation's Disclosures do not process", input)
        }
        if shown[key] != claims[key] { violation("presenting \(key) changed its value", input) }
    }
}

private func fuzzText(_ input: Data) {
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    let sdJWT: SDJWT
    do {
        sdJWT = try SDJWT(parsing: text, limits: limits)
    } catch {
        return
    }
    if sdJWT.serialization == .compact {
        if sdJWT.compact != text { violation("compact serialization differs from the received text", input) }
        let parts = text.split(separator: "~", omittingEmptySubsequences: false)
        for (disclosure, part) in zip(sdJWT.disclosures, parts.dropFirst()) where disclosure.encoded != part {
            violation("a Disclosure does not keep its received string", input)
        }
    }
    guard let again = try? SDJWT(parsing: sdJWT.compact, limits: limits) else { violation("serialization does not reparse", input) }
    if again.disclosures != sdJWT.disclosures || again.keyBindingJWT?.compact != sdJWT.keyBindingJWT?.compact
        || again.sdHashInput != sdJWT.sdHashInput
    {
        violation("reparsing changed the SD-JWT", input)
    }
    checkClaims(sdJWT, input)
    _ = verifyBlocking(sdJWT)
}

private func fuzzParts(_ input: Data) {
    var parts = input.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map { Array($0) }
    guard !parts.isEmpty, parts.count <= 11 else { return }
    var encoded = [String](repeating: "", count: parts.count)
    var digests = [String](repeating: "", count: parts.count)
    for index in stride(from: parts.count - 1, through: 0, by: -1) {
        var text = String(decoding: parts[index], as: UTF8.self)
        for k in 1..<parts.count where k > index || index == 0 {
            text = text.replacingOccurrences(of: "\"@\(k)\"", with: "\"\(digests[k])\"")
        }
        parts[index] = Array(text.utf8)
        encoded[index] = Base64URL.encode(parts[index])
        digests[index] = SDHashAlgorithm.sha256.base64URLDigest(of: encoded[index])
    }
    let header = Base64URL.encode(Data(#"{"alg":"ES256","typ":"dc+sd-jwt"}"#.utf8))
    let signature = Base64URL.encode(Data(repeating: 7, count: 64))
    let text = header + "." + encoded[0] + "." + signature + "~" + encoded.dropFirst().map { $0 + "~" }.joined()
    guard let sdJWT = try? SDJWT(parsing: text, limits: limits) else { return }
    if sdJWT.compact != text { violation("compact serialization differs from the assembled text", input) }
    checkClaims(sdJWT, input)
    if verifyBlocking(sdJWT).isValid { violation("an unsigned SD-JWT verified", input) }
}

/// What this binary fuzzes, from TESSERA_FUZZ_STRUCTURE (which `scripts/fuzz` sets).
private enum Structure: String, CaseIterable {
    case sdjwt
    case statusList = "status-list"
}

private let structure = FuzzDriver.structure(Structure.self, program: "FuzzSDJWT")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    switch structure {
    case .sdjwt:
        guard let mode = input.first else { return 0 }
        if mode & 1 == 0 { fuzzText(input) } else { fuzzParts(input) }
    case .statusList:
        fuzzStatusList(input)
    }
    return 0
}

@_cdecl("FuzzSDJWT_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
