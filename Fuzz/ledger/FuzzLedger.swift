// libFuzzer target for the ledger's request bodies and the LedgerProtocol parsers. One binary serves two targets;
// the structure comes from TESSERA_FUZZ_STRUCTURE, which `scripts/fuzz ledger-<structure>` sets:
//
//   body   a JSON text, read as every request body of /api/v1 (enroll/start, enroll/set-password, enroll/finalize,
//          action/request, auth/execute), as a SealedBox (itself, `password`, `blob`) and as KDFParameters (itself,
//          `kdf`): the parsers the ledger runs on what a client sends, and the device on what a ledger answers.
//   seal   info selector (1) ‖ AAD length (1) ‖ AAD ‖ epk (32) ‖ nonce (12) ‖ ciphertext, opened with a fixed
//          recipient key (the seeds are real boxes sealed to it, so mutations start from boxes that open).
//
// Seeds: Fuzz/ledger/seeds/<structure>/.
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. Parsing and opening never crash (ASan checks memory); parsers fail only with `malformed`, Seal.open only
//      with `openFailed`.
//   2. An accepted body keeps every member within its documented limit, and its `json` parses back to an equal value
//      (also through serialized bytes).
//   3. Accepted KDF parameters lie in the accepted cost ranges; cheap ones hash deterministically to `len` bytes.
//   4. The LAT proof of an accepted action request verifies and fails with any other jti; the device signature over
//      the input verifies with its key and never with another.
//   5. A box that opens has a canonical epk and a tag, opens under no other purpose or AAD, and its plaintext
//      sealed again opens to the same bytes.

import Crypto
import Foundation
import FuzzSupport
import LedgerProtocol
import TesseraCore
import TesseraJOSE

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private enum Structure: String, CaseIterable {
    case body, seal
}

private let structure = FuzzDriver.structure(Structure.self, program: "FuzzLedger")

private func violation(_ message: String, _ input: Data) -> Never {
    FuzzDriver.violation("ledger-\(structure.rawValue)", message, input)
}

// Keys are made per input: LeakSanitizer cannot follow the tagged pointers of a key or of `Data` out of a global.
private func recipient() -> Curve25519.KeyAgreement.PrivateKey? {
    try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data((0x21...0x40).map { UInt8($0) }))
}

private func deviceKey() -> Curve25519.Signing.PrivateKey? {
    try? Curve25519.Signing.PrivateKey(rawRepresentation: Data((0x41...0x60).map { UInt8($0) }))
}

// MARK: body

/// Property 1 for the parsers: only `malformed`.
private func parse<T>(_ input: Data, _ make: () throws(LedgerProtocolError) -> T) -> T? {
    do {
        return try make()
    } catch {
        guard case .malformed = error else { violation("a parser failed with \(error)", input) }
        return nil
    }
}

/// Property 2: `json` comes back equal, directly and through its serialization.
private func roundTrip<T: Equatable>(_ value: T, _ json: JSONObject, _ input: Data, _ make: (JSONObject) throws(LedgerProtocolError) -> T) {
    guard (try? make(json)) == value else { violation("\(T.self).json does not parse back to an equal value", input) }
    guard let again = try? JSONValue.parse(JSONValue.object(json).serialized()).objectValue, (try? make(again)) == value else {
        violation("\(T.self).json does not survive serialization", input)
    }
}

private func checkString(_ value: String, max: Int, _ name: String, _ input: Data) {
    if value.isEmpty || value.utf8.count > max { violation("\(name) accepted with \(value.utf8.count) bytes (limit \(max))", input) }
}

private func checkBox(_ box: SealedBox, _ input: Data) {
    if box.epk.count != 32 || box.nonce.count != 12 || box.ciphertext.count < 16 || box.ciphertext.count > Seal.maxCiphertextBytes {
        violation("a sealed box with impossible lengths was accepted", input)
    }
    roundTrip(box, box.json, input, SealedBox.init(json:))
    // A box from the input does not open for the fixed recipient (the body seeds carry no box sealed to it), and
    // trying never fails otherwise than closed.
    guard let key = recipient() else { return }
    do {
        _ = try Seal.open(box, with: key, info: .transactionEncryption, aad: Data("pw|u|t|k".utf8))
        violation("a box from a JSON body opened", input)
    } catch {
        if error != .openFailed { violation("Seal.open failed with \(error)", input) }
    }
}

private func checkKDF(_ kdf: KDFParameters, _ input: Data) {
    guard (16...64).contains(kdf.salt.count), (1...16).contains(kdf.parallelism), (1...16).contains(kdf.iterations),
        (8 * kdf.parallelism...4_194_304).contains(kdf.memoryKiB), (16...64).contains(kdf.length)
    else { violation("KDF parameters outside the accepted costs were accepted", input) }
    roundTrip(kdf, kdf.json, input, KDFParameters.init(json:))
    // Cheap enough to run on every input that gets here.
    guard kdf.memoryKiB <= 128, kdf.iterations <= 2 else { return }
    guard let first = try? kdf.hash(password: "fuzz"), let second = try? kdf.hash(password: "fuzz") else {
        violation("Argon2id failed for accepted parameters", input)
    }
    if first != second || first.count != Int(kdf.length) { violation("Argon2id is not deterministic or has the wrong length", input) }
}

private func fuzzBody(_ input: Data) {
    guard let object = (try? JSONValue.parse(input, limits: JSONLimits(maxBytes: 64 * 1024, maxDepth: 16)))?.objectValue else { return }

    if let start = parse(input, { () throws(LedgerProtocolError) in try EnrollStartRequest(json: object) }) {
        checkString(start.invitationCode, max: 128, "invitation_code", input)
        checkString(start.deviceID, max: 256, "device_id", input)
        checkString(start.deviceType, max: 64, "device_type", input)
        if (try? Curve25519.Signing.PublicKey(rawRepresentation: start.devicePublicKey)) == nil {
            violation("device_public_key accepted but not an Ed25519 key", input)
        }
        roundTrip(start, start.json, input, EnrollStartRequest.init(json:))
    }
    if let set = parse(input, { () throws(LedgerProtocolError) in try SetPasswordRequest(json: object) }) {
        checkString(set.enrollmentSession, max: 128, "enrollment_session", input)
        checkString(set.userGUID, max: 64, "user_guid", input)
        checkString(set.keyID, max: 64, "key_id", input)
        checkBox(set.password, input)
        roundTrip(set, set.json, input, SetPasswordRequest.init(json:))
    }
    if let finalize = parse(input, { () throws(LedgerProtocolError) in try FinalizeRequest(json: object) }) {
        checkString(finalize.enrollmentSession, max: 128, "enrollment_session", input)
        checkString(finalize.userGUID, max: 64, "user_guid", input)
        roundTrip(finalize, finalize.json, input, FinalizeRequest.init(json:))
    }
    if let action = parse(input, { () throws(LedgerProtocolError) in try ActionRequest(json: object) }) {
        checkString(action.userGUID, max: 64, "user_guid", input)
        checkString(action.actionType, max: 64, "action_type", input)
        checkString(action.clientNonce, max: 128, "client_nonce", input)
        if let version = action.latVersion, version < 0 || version > Int(Int32.max) { violation("lat_version \(version) accepted", input) }
        roundTrip(action, action.json, input, ActionRequest.init(json:))
        let lat = Data(repeating: 0x4c, count: 32)
        let proof = LATProof.make(lat: lat, userGUID: action.userGUID, clientNonce: action.clientNonce, jti: "jti")
        if !LATProof.check(proof, lat: lat, userGUID: action.userGUID, clientNonce: action.clientNonce, jti: "jti")
            || LATProof.check(proof, lat: lat, userGUID: action.userGUID, clientNonce: action.clientNonce, jti: "jti2")
        {
            violation("the LAT proof does not bind the jti", input)
        }
    }
    if let execute = parse(input, { () throws(LedgerProtocolError) in try ExecuteRequest(json: object) }) {
        checkString(execute.keyID, max: 64, "key_id", input)
        checkBox(execute.password, input)
        checkBox(execute.blob, input)
        if execute.cekVersion < 0 || execute.cekVersion > Int(Int32.max) { violation("cek_version \(execute.cekVersion) accepted", input) }
        roundTrip(execute, execute.json, input, ExecuteRequest.init(json:))
    }
    for candidate in [object, object["password"]?.objectValue, object["blob"]?.objectValue] {
        if let box = parse(input, { () throws(LedgerProtocolError) in try SealedBox(json: candidate) }) { checkBox(box, input) }
    }
    for candidate in [object, object["kdf"]?.objectValue] {
        if let kdf = parse(input, { () throws(LedgerProtocolError) in try KDFParameters(json: candidate) }) { checkKDF(kdf, input) }
    }

    // The device signature over the input as a body, with the object's strings as path and nonce.
    guard let key = deviceKey() else { return }
    let path = object["path"]?.stringValue ?? "/api/v1/action/request"
    let nonce = object["nonce"]?.stringValue ?? "n"
    let timestamp = object["timestamp"]?.int64Value ?? 0
    guard let headers = try? DeviceSignature.headers(key: key, method: "POST", path: path, timestamp: timestamp, nonce: nonce, body: input),
        let signature = headers.first?.value
    else { violation("the device key could not sign", input) }
    if !DeviceSignature.verify(signature: signature, publicKey: key.publicKey, method: "POST", path: path, timestamp: timestamp, nonce: nonce, body: input) {
        violation("a device signature does not verify", input)
    }
    if let claimed = object["signature"]?.stringValue,
        DeviceSignature.verify(signature: claimed, publicKey: key.publicKey, method: "POST", path: path, timestamp: timestamp, nonce: nonce, body: input)
    {
        violation("a signature taken from the input verified", input)
    }
}

// MARK: seal

private func fuzzSeal(_ input: Data) {
    var fields = FuzzFields(input)
    guard let selector = fields.take(1)?.first, let aadLength = fields.take(1)?.first, let aad = fields.take(Int(aadLength)),
        let epk = fields.take(32), let nonce = fields.take(12)
    else { return }
    let ciphertext = Data(fields.rest)
    let info = SealInfo.allCases[Int(selector) % SealInfo.allCases.count]
    let box: SealedBox
    do {
        box = try SealedBox(epk: epk, nonce: nonce, ciphertext: ciphertext)
    } catch {
        if (16...Seal.maxCiphertextBytes).contains(ciphertext.count) { violation("a well-sized box was refused: \(error)", input) }
        return
    }
    guard let key = recipient() else { return }
    let plaintext: Data
    do {
        plaintext = try Seal.open(box, with: key, info: info, aad: aad)
    } catch {
        if error != .openFailed { violation("Seal.open failed with \(error)", input) }
        return
    }
    if !Seal.isCanonical(box.epk) { violation("a box with a non-canonical epk opened", input) }
    if plaintext.count != box.ciphertext.count - 16 { violation("the plaintext is not the ciphertext less its tag", input) }
    for other in SealInfo.allCases where other != info {
        if (try? Seal.open(box, with: key, info: other, aad: aad)) != nil { violation("a box opened under another purpose", input) }
    }
    if (try? Seal.open(box, with: key, info: info, aad: aad + Data([0]))) != nil { violation("a box opened under a longer AAD", input) }
    guard let again = try? Seal.seal(to: key.publicKey, info: info, aad: aad, plaintext: plaintext, random: SystemRandomSource()),
        (try? Seal.open(again, with: key, info: info, aad: aad)) == plaintext
    else { violation("the plaintext sealed again does not open to the same bytes", input) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    switch structure {
    case .body: fuzzBody(input)
    case .seal: fuzzSeal(input)
    }
    return 0
}

@_cdecl("FuzzLedger_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
