// libFuzzer target for VaultProtocol: everything a vault or an app decodes off the bus. One binary serves two
// targets; the structure comes from TESSERA_FUZZ_STRUCTURE, which `scripts/fuzz vault-<structure>` sets:
//
//   wire      the input as an envelope, an envelope plaintext (event message or response), a peer message, an invite
//             string, a signed bootstrap reply, and (when it is a JSON object) a bootstrap payload, bootstrap result,
//             session info, sealed credentials and invite JSON. Envelopes and peer messages are opened with fixed keys
//             (the seeds are real ones sealed to them, so mutations start from envelopes that open).
//   payload   selector (1) ‖ JSON object: the selector picks one decoder of the catalogue (every handler request and
//             result, push, peer message body), the rest is its input.
//
// Seeds: Fuzz/vault/seeds/<structure>/.
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. Decoding never crashes (ASan checks memory) and fails only with `malformed`, `tooLarge` or
//      `unsupportedVersion`; opening fails only with `decryptionFailed`; verifying a reply never succeeds with
//      another identity key or request id.
//   2. An accepted typed value keeps every limit: strings ≤ 64 KiB, member names ≤ 256 bytes, lists ≤ 1000; envelope
//      seq in 1…2⁵³, nonce 12 bytes, ciphertext ≥ 16; a peer message's envelope belongs to its connection. (An event's
//      payload and a response's result are opaque objects, bounded only by the message's size and depth, until the
//      handler's decoder reads them.)
//   3. An accepted value encodes to JSON that decodes to an equal value, and encoding is deterministic.
//   4. An envelope that opens opens under no other direction or subject, and its plaintext sealed again opens to the
//      same bytes.

import Crypto
import Foundation
import FuzzSupport
import TesseraCore
import TesseraJOSE
import VaultProtocol

private enum Structure: String, CaseIterable {
    case wire, payload
}

private let structure = FuzzDriver.structure(Structure.self, program: "FuzzVault")

private func violation(_ message: String, _ input: Data) -> Never {
    FuzzDriver.violation("vault-\(structure.rawValue)", message, input)
}

private let guid = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
private let peerGUID = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

// Keys are made per input: LeakSanitizer cannot follow the tagged pointers of a key or of `Data` out of a global.
private func sessionKey() -> SymmetricKey { SymmetricKey(data: Data(repeating: 0x11, count: 32)) }
private func connectionKey() -> SymmetricKey { SymmetricKey(data: Data(repeating: 0x22, count: 32)) }
private func identityKey() -> Curve25519.Signing.PrivateKey? { try? Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: 0x07, count: 32)) }
private func commandSubject() -> String { VaultSubjects.command(guid, type: "profile.get") }

// MARK: Shared checks

/// Property 1 for decoders.
private func decode<T>(_ input: Data, _ make: () throws(VaultProtocolError) -> T) -> T? {
    do {
        return try make()
    } catch {
        switch error {
        case .malformed, .tooLarge, .unsupportedVersion: return nil
        default: violation("a decoder failed with \(error)", input)
        }
    }
}

/// Property 2 for any accepted JSON: every string, name and list within the limits.
private func checkLimits(_ value: JSONValue, _ input: Data) {
    switch value {
    case .string(let text):
        if text.utf8.count > VaultLimits.maxValueBytes { violation("a string of \(text.utf8.count) bytes was accepted", input) }
    case .array(let entries):
        if entries.count > VaultLimits.maxListCount { violation("a list of \(entries.count) entries was accepted", input) }
        for entry in entries { checkLimits(entry, input) }
    case .object(let object):
        if object.count > VaultLimits.maxListCount { violation("an object of \(object.count) members was accepted", input) }
        for (key, member) in object {
            if key.utf8.count > VaultLimits.maxKeyBytes { violation("a member name of \(key.utf8.count) bytes was accepted", input) }
            checkLimits(member, input)
        }
    default: break
    }
}

/// Property 3: the encoding decodes again to the same encoding, directly and through bytes.
private func roundTrip(_ name: String, _ json: JSONObject, _ input: Data, _ make: (JSONObject) throws(VaultProtocolError) -> JSONObject) {
    checkLimits(.object(json), input)
    guard let again = try? make(json), again == json else { violation("\(name): the encoding does not decode to an equal value", input) }
    guard let parsed = try? JSONValue.parse(json.serialized(), limits: VaultLimits.json).objectValue, let third = try? make(parsed),
        third.serialized() == json.serialized()
    else { violation("\(name): the encoding does not survive serialization", input) }
}

// MARK: wire

private func checkEnvelope(_ envelope: VaultEnvelope, key: SymmetricKey, direction: VaultDirection, subject: String, _ input: Data) -> Data? {
    guard envelope.version == 1, (1...VaultEnvelope.maxSeq).contains(envelope.seq), envelope.nonce.count == 12, envelope.ciphertext.count >= 16,
        VaultToken.isToken(envelope.sessionID)
    else { violation("an envelope outside the rules was accepted", input) }
    guard (try? VaultEnvelope(json: envelope.encoded())) == envelope else { violation("an envelope does not survive encoding", input) }
    let plaintext: Data
    do {
        plaintext = try envelope.open(key: key, direction: direction, subject: subject)
    } catch {
        if error != .decryptionFailed { violation("open failed with \(error)", input) }
        return nil
    }
    // Property 4.
    for other in VaultDirection.allCases where other != direction {
        if (try? envelope.open(key: key, direction: other, subject: subject)) != nil { violation("an envelope opened in another direction", input) }
    }
    if (try? envelope.open(key: key, direction: direction, subject: subject + ".x")) != nil { violation("an envelope opened on another subject", input) }
    guard
        let again = try? VaultEnvelope.seal(
            plaintext, key: key, direction: direction, sessionID: envelope.sessionID, seq: envelope.seq, subject: subject, random: SystemRandomSource()),
        (try? again.open(key: key, direction: direction, subject: subject)) == plaintext
    else { violation("a plaintext sealed again does not open to the same bytes", input) }
    return plaintext
}

private func checkPlaintext(_ bytes: Data, _ input: Data) {
    guard let plaintext = decode(input, { () throws(VaultProtocolError) in try VaultPlaintext(json: bytes) }) else {
        if (try? VaultEventMessage(json: bytes)) != nil || (try? VaultEventResponse(json: bytes)) != nil {
            violation("VaultPlaintext refused what one of its kinds accepts", input)
        }
        return
    }
    guard (try? VaultPlaintext(json: plaintext.encoded())) == plaintext else { violation("a plaintext does not survive encoding", input) }
    switch plaintext {
    case .message(let message):
        guard (try? VaultEventMessage(json: bytes)) == message, VaultToken.isToken(message.id), VaultToken.isType(message.type) else {
            violation("an event message outside the rules was accepted", input)
        }
        // The payload (opaque at this level: only the message's size and depth bound it) as the handler or push
        // its type names.
        if let handler = message.handler {
            let type = handler.requestType
            if let request = decode(input, { () throws(VaultProtocolError) in try type.init(payload: message.payload) }) {
                roundTrip(handler.rawValue, request.payload, input) { json throws(VaultProtocolError) in try type.init(payload: json).payload }
            }
        } else if let notification = VaultNotification(rawValue: message.type) {
            let type = notification.payloadType
            if let push = decode(input, { () throws(VaultProtocolError) in try type.init(payload: message.payload) }) {
                roundTrip(notification.rawValue, push.payload, input) { json throws(VaultProtocolError) in try type.init(payload: json).payload }
            }
        } else if message.type == VaultSubjects.bootstrapType,
            let payload = decode(input, { () throws(VaultProtocolError) in try BootstrapPayload(json: message.payload) })
        {
            roundTrip("bootstrap payload", payload.json, input) { json throws(VaultProtocolError) in try BootstrapPayload(json: json).json }
        }
    case .response(let response):
        guard (try? VaultEventResponse(json: bytes)) == response, response.success == (response.error == nil),
            response.success || response.result == nil
        else { violation("an event response outside the rules was accepted", input) }
    }
}

private func checkPeer(_ input: Data) {
    guard let message = decode(input, { () throws(VaultProtocolError) in try PeerMessage(json: input) }) else { return }
    guard message.envelope.sessionID == message.connectionID, VaultToken.isGUID(message.senderGUID),
        (message.senderConnectionKey != nil) == message.kind.carriesConnectionKey
    else { violation("a peer message outside the rules was accepted", input) }
    guard (try? PeerMessage(json: message.encoded())) == message else { violation("a peer message does not survive encoding", input) }
    let subject = VaultSubjects.peer(guid, kind: message.kind.rawValue)
    guard let plaintext = checkEnvelope(message.envelope, key: connectionKey(), direction: .vaultToVault, subject: subject, input) else { return }
    let type = message.kind.bodyType
    guard let object = try? JSONValue.parse(plaintext, limits: VaultLimits.json).objectValue else { return }
    if let body = decode(input, { () throws(VaultProtocolError) in try type.init(json: object) }) {
        roundTrip(message.kind.rawValue, body.json, input) { json throws(VaultProtocolError) in try type.init(json: json).json }
    }
}

private func checkReply(_ text: String, _ input: Data) {
    guard let identity = identityKey() else { return }
    let requestID = "6f1c0c1e-8a8b-4a53-9d1e-0c7f3b2a1d00"
    guard let appKey = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(1...32)).publicKey.rawRepresentation else { return }
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let result: BootstrapResult
    do {
        result = try SignedBootstrapReply.verify(text, identityPublicKey: identity.publicKey.rawRepresentation, requestID: requestID, appSessionPublicKey: appKey, now: now)
    } catch {
        switch error {
        case .decryptionFailed, .encryptionFailed, .signingFailed, .invalidKey: violation("verify failed with \(error)", input)
        default: return
        }
    }
    if result.sessionInfo.appSessionPublicKey != appKey || !result.sessionInfo.encryptionEnabled { violation("a reply with a wrong binding verified", input) }
    roundTrip("bootstrap result", result.json, input) { json throws(VaultProtocolError) in try BootstrapResult(json: json).json }
    let other = Curve25519.Signing.PrivateKey().publicKey.rawRepresentation
    if (try? SignedBootstrapReply.verify(text, identityPublicKey: other, requestID: requestID, appSessionPublicKey: appKey, now: now)) != nil {
        violation("a reply verified with another identity key", input)
    }
    if (try? SignedBootstrapReply.verify(text, identityPublicKey: identity.publicKey.rawRepresentation, requestID: "other", appSessionPublicKey: appKey, now: now)) != nil {
        violation("a reply verified for another request", input)
    }
}

private func fuzzWire(_ input: Data) {
    if let envelope = decode(input, { () throws(VaultProtocolError) in try VaultEnvelope(json: input) }),
        let plaintext = checkEnvelope(envelope, key: sessionKey(), direction: .appToVault, subject: commandSubject(), input)
    {
        checkPlaintext(plaintext, input)
    }
    checkPlaintext(input, input)
    checkPeer(input)
    let text = String(decoding: input, as: UTF8.self)
    if let invite = decode(input, { () throws(VaultProtocolError) in try ConnectionInvite(string: text) }) {
        if invite.encoded().utf8.count > ConnectionInvite.maxStringBytes { violation("an invite encodes longer than its limit", input) }
        guard (try? ConnectionInvite(string: invite.encoded())) == invite else { violation("an invite does not survive encoding", input) }
    }
    checkReply(text, input)

    guard let object = try? JSONValue.parse(input, limits: VaultLimits.json).objectValue else { return }
    let decoders: [(String, (JSONObject) throws(VaultProtocolError) -> JSONObject)] = [
        ("bootstrap payload", { json throws(VaultProtocolError) in try BootstrapPayload(json: json).json }),
        ("bootstrap result", { json throws(VaultProtocolError) in try BootstrapResult(json: json).json }),
        ("session info", { json throws(VaultProtocolError) in try SessionInfo(json: json).json }),
        ("sealed credentials", { json throws(VaultProtocolError) in try SealedCredentials(json: json).json }),
        ("invite", { json throws(VaultProtocolError) in try ConnectionInvite(json: json).json }),
    ]
    for (name, make) in decoders {
        if let json = decode(input, { () throws(VaultProtocolError) in try make(object) }) { roundTrip(name, json, input, make) }
    }
}

// MARK: payload

/// Every decoder of the catalogue, in a fixed order (the seeds' selector bytes index it).
private let catalogue: [(String, @Sendable (JSONObject) throws(VaultProtocolError) -> JSONObject)] = {
    var out: [(String, @Sendable (JSONObject) throws(VaultProtocolError) -> JSONObject)] = []
    for handler in VaultHandler.allCases {
        let request = handler.requestType, result = handler.resultType
        out.append((handler.rawValue + " request", { json throws(VaultProtocolError) in try request.init(payload: json).payload }))
        out.append((handler.rawValue + " result", { json throws(VaultProtocolError) in try result.init(result: json).result }))
    }
    for notification in VaultNotification.allCases {
        let type = notification.payloadType
        out.append((notification.rawValue + " push", { json throws(VaultProtocolError) in try type.init(payload: json).payload }))
    }
    for kind in PeerMessageKind.allCases {
        let type = kind.bodyType
        out.append((kind.rawValue + " peer body", { json throws(VaultProtocolError) in try type.init(json: json).json }))
    }
    return out
}()

private func fuzzPayload(_ input: Data) {
    var fields = FuzzFields(input)
    guard let selector = fields.take(1)?.first else { return }
    let (name, make) = catalogue[Int(selector) % catalogue.count]
    let body = Data(fields.rest)
    guard let object = try? JSONValue.parse(body, limits: VaultLimits.json).objectValue else { return }
    if let json = decode(input, { () throws(VaultProtocolError) in try make(object) }) { roundTrip(name, json, input, make) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    switch structure {
    case .wire: fuzzWire(input)
    case .payload: fuzzPayload(input)
    }
    return 0
}

@_cdecl("FuzzVault_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
