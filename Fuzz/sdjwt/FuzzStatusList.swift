// The `status-list` structure of FuzzSDJWT (`scripts/fuzz status-list`): the Token Status List readers of the
// TokenStatusList module, sharing this binary with `sdjwt` (SDJWT links TokenStatusList) so that CI builds no
// further product.
//
// Input: the first byte picks the mode (modulo 5), the rest is:
//   0 → a JWT Status List Token (TSL §5.1) as text;
//   1 → a CWT Status List Token (TSL §5.2) as bytes;
//   2 → a JSON Status List (TSL §4.2) as text;
//   3 → a CBOR Status List (TSL §4.3) as bytes;
//   4 → a list built here: the next byte picks `bits`, the bytes after it are the uncompressed list.
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. Nothing crashes (ASan checks memory); every error is a StatusListError (typed throws) and small limits hold.
//   2. A list that was read, written again as JSON and as CBOR, reads back to the same list (bytes, bits,
//      aggregation_uri) with the same statuses, and rebuilding it from its non-VALID entries gives it again.
//   3. A token that was read parses again from its kept text or bytes to the same claims, and never verifies with
//      a key that signed nothing.

import Crypto
import Foundation
import FuzzSupport
import TesseraCBOR
import TesseraCOSE
import TesseraJOSE
import TokenStatusList

private let statusLimits = StatusListLimits(maxListBytes: 1 << 16, maxTokenBytes: 1 << 16, maxDepth: 16)

private let unrelatedKey: P256.Signing.PublicKey = {
    let scalar = Data((1...32).map { UInt8($0) })
    guard let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) else { exit(3) }
    return key.publicKey
}()

private func violation(_ message: String, _ input: Data) -> Never {
    FuzzDriver.violation("status-list", message, input)
}

/// Property 2 for a list that was read or built.
private func checkList(_ list: StatusList, _ input: Data) {
    let json: JSONObject
    let cbor: CBOR
    do {
        json = try list.jsonObject()
        cbor = try list.cbor()
    } catch {
        violation("a readable list does not encode: \(error)", input)
    }
    guard let fromJSON = try? StatusList(json: json, limits: statusLimits), fromJSON == list else {
        violation("the JSON list does not read back to the same list", input)
    }
    guard let fromCBOR = try? StatusList(cborBytes: cbor.encoded(options: .preserving), limits: statusLimits),
        fromCBOR == list
    else {
        violation("the CBOR list does not read back to the same list", input)
    }
    let entries = list.nonValidStatuses
    for entry in entries.prefix(64) where (try? list.status(at: entry.index)) != entry.status {
        violation("nonValidStatuses disagrees with status(at:) at \(entry.index)", input)
    }
    guard let rebuilt = try? StatusList(bits: list.bits, count: list.count, statuses: entries),
        rebuilt.bytes == list.bytes
    else {
        violation("rebuilding from the non-VALID entries gives another list", input)
    }
    if list.bits == 1 {
        guard let fast = try? StatusList(bits: 1, count: list.count, setting: entries.map(\.index)), fast.bytes == list.bytes else {
            violation("the one-bit fast path gives another list", input)
        }
    }
}

private func fuzzJWT(_ text: String, _ input: Data) {
    guard let token = try? StatusListToken(parsing: text, limits: statusLimits) else { return }
    guard let again = try? StatusListToken(parsing: token.jwt.compact, limits: statusLimits), again.claims == token.claims else {
        violation("the kept compact text does not parse to the same claims", input)
    }
    if (try? token.verifySignature(with: .es256(unrelatedKey))) != nil { violation("an unsigned JWT verified", input) }
    checkList(token.statusList, input)
}

private func fuzzCWT(_ bytes: Data, _ input: Data) {
    guard let token = try? StatusListCWT(bytes: bytes, limits: statusLimits) else { return }
    if token.bytes != bytes { violation("the CWT does not keep its bytes", input) }
    guard let again = try? StatusListCWT(bytes: token.bytes, limits: statusLimits), again.claims == token.claims,
        again.message.protected.rawBytes == token.message.protected.rawBytes, again.message.payload == token.message.payload
    else {
        violation("the kept bytes do not parse to the same token", input)
    }
    if (try? token.verifySignature(with: .p256(unrelatedKey))) != nil { violation("an unsigned CWT verified", input) }
    checkList(token.statusList, input)
}

/// The `status-list` structure's handling of one input.
func fuzzStatusList(_ input: Data) {
    guard let mode = input.first else { return }
    let rest = input.dropFirst()
    switch mode % 5 {
    case 0:
        fuzzJWT(String(decoding: rest, as: UTF8.self), input)
    case 1:
        fuzzCWT(Data(rest), input)
    case 2:
        guard let object = (try? JSONValue.parse(rest, limits: JSONLimits(maxBytes: 1 << 16, maxDepth: 16)))?.objectValue,
            let list = try? StatusList(json: object, limits: statusLimits)
        else { return }
        checkList(list, input)
    case 3:
        guard let list = try? StatusList(cborBytes: Data(rest), limits: statusLimits) else { return }
        checkList(list, input)
    default:
        guard let selector = rest.first else { return }
        let bytes = Array(rest.dropFirst().prefix(1 << 12))
        guard let list = try? StatusList(bits: 1 << Int(selector % 4), bytes: bytes) else { return }
        checkList(list, input)
    }
}
