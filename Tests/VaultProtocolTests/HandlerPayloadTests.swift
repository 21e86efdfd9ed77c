import Foundation
import TesseraJOSE
import Testing
import VaultProtocol
import TesseraCore

/// Every decoder of the catalogue, table-driven from `PayloadSamples`: round trip, then each malformed case —
/// a missing member, a wrong type, `null`, an unknown member, a string one byte too long, an integer out of range.
@Suite struct HandlerPayloadTests {
    @Test func catalogueIsComplete() {
        #expect(VaultHandler.allCases.count == 26)
        for handler in VaultHandler.allCases {
            #expect(PayloadSamples.requests[handler] != nil, "no request sample for \(handler.rawValue)")
            #expect(PayloadSamples.results[handler] != nil, "no result sample for \(handler.rawValue)")
            #expect(handler.requestType.handler == handler)
            #expect(VaultToken.isType(handler.rawValue))
        }
        #expect(Set(PayloadSamples.pushes.map(\.name)) == Set(VaultNotification.allCases.map { $0.rawValue + " push" }))
        #expect(Set(PayloadSamples.peerBodies.map(\.name)) == Set(PeerMessageKind.allCases.map { $0.rawValue + " peer body" }))
        for kind in PeerMessageKind.allCases { #expect(kind.bodyType.kind == kind) }
        for notification in VaultNotification.allCases { #expect(notification.payloadType.notification == notification) }
    }

    /// The catalogue is a list, not a switch: a handler without a request type, or with two, is caught here.
    @Test func everyHandlerHasExactlyOneRequestType() {
        let handlers = VaultHandler.requests.map { $0.handler }
        #expect(handlers.count == VaultHandler.allCases.count)
        #expect(Set(handlers) == Set(VaultHandler.allCases))
    }

    @Test(arguments: PayloadSamples.all)
    func roundTrip(_ sample: PayloadSample) throws {
        let encoded = try sample.roundTrip(sample.json)
        #expect(encoded == sample.json)
        // Through bytes too, and the encoder is deterministic.
        let again = try JSONValue.parse(encoded.serialized()).objectValue ?? [:]
        #expect(try sample.roundTrip(again).serialized() == encoded.serialized())
    }

    @Test(arguments: PayloadSamples.all)
    func missingMembers(_ sample: PayloadSample) throws {
        for name in sample.json.keys {
            var json = sample.json
            json[name] = nil
            if sample.optional.contains(name) {
                _ = try sample.roundTrip(json)
            } else {
                #expect(throws: VaultProtocolError.self, "\(sample.name) without \(name)") { try sample.roundTrip(json) }
            }
        }
    }

    @Test(arguments: PayloadSamples.all)
    func wrongTypesAndNull(_ sample: PayloadSample) {
        for (name, value) in sample.json {
            let wrong: JSONValue
            switch value {
            case .string: wrong = .integer(1)
            case .integer: wrong = .string("1")
            case .bool: wrong = .string("true")
            case .object: wrong = .array([])
            case .array: wrong = .object([:])
            default: wrong = .null
            }
            for replacement in [wrong, .null, .number(1.5)] {
                var json = sample.json
                json[name] = replacement
                #expect(throws: VaultProtocolError.self, "\(sample.name).\(name) = \(replacement)") { try sample.roundTrip(json) }
            }
        }
    }

    @Test(arguments: PayloadSamples.all)
    func unknownMembers(_ sample: PayloadSample) {
        for extra in ["extra", "Key", "key ", ""] where !sample.json.contains(extra) {
            var json = sample.json
            json[extra] = "x"
            #expect(throws: VaultProtocolError.self, "\(sample.name) with \(extra)") { try sample.roundTrip(json) }
        }
    }

    @Test(arguments: PayloadSamples.all)
    func tooLongStringsAndOutOfRangeIntegers(_ sample: PayloadSample) {
        for (name, value) in sample.json {
            var candidates: [JSONValue] = []
            switch value {
            case .string: candidates = [.string(string((PayloadSample.stringLimits[name] ?? VaultLimits.maxKeyBytes) + 1))]
            case .integer: candidates = [.integer(-1), .integer(VaultLimits.maxInteger + 1), .integer(.max)]
            case .array(let entries):
                // 1001 entries, and one entry too long.
                candidates = [.array(Array(repeating: entries.first ?? "x", count: VaultLimits.maxListCount + 1))]
                if case .string = entries.first { candidates.append(.array([.string(string(VaultLimits.maxKeyBytes + 1))])) }
            default: continue
            }
            for candidate in candidates {
                var json = sample.json
                json[name] = candidate
                #expect(throws: VaultProtocolError.self, "\(sample.name).\(name) too long or out of range") { try sample.roundTrip(json) }
            }
        }
    }

    // MARK: Limits at their edge, defaults, nested objects

    @Test func valuesUpToTheirLimitAreAccepted() throws {
        let value = string(VaultLimits.maxValueBytes)
        #expect(try DatastoreAddRequest(payload: ["key": .string(string(256)), "value": .string(value)]).value == value)
        #expect(try MessageSendRequest(payload: ["connection_id": .string(string(128)), "content": .string(value)]).content.utf8.count == 65536)
        #expect(throws: VaultProtocolError.self) { try MessageSendRequest(payload: ["connection_id": .string(string(129)), "content": ""]) }
        #expect(try DatastoreAddRequest(payload: ["key": "k", "value": ""]).value.isEmpty)
        #expect(throws: VaultProtocolError.self) { try DatastoreAddRequest(payload: ["key": "", "value": "v"]) }
        // Multi-byte characters count in bytes.
        #expect(throws: VaultProtocolError.self) { try DatastoreRetrieveRequest(payload: ["key": .string(string(129, "é"))]) }
        #expect(try DatastoreRetrieveRequest(payload: ["key": .string(string(128, "é"))]).key.count == 128)
    }

    @Test func stringMapsAndLists() throws {
        var big = JSONObject()
        for index in 0...VaultLimits.maxListCount { big["f\(index)"] = "v" }
        #expect(throws: VaultProtocolError.self) { try ProfileUpdateRequest(payload: ["set": .object(big)]) }
        big["f0"] = nil
        #expect(try ProfileUpdateRequest(payload: ["set": .object(big)]).set?.count == 1000)
        for bad: JSONValue in [["name": 1], ["name": ["x"]], ["": "x"], [string(257): "x"], ["n": .string(string(65537))]] {
            #expect(throws: VaultProtocolError.self) { try DatastoreAddRequest(payload: ["key": "k", "value": "v", "metadata": bad]) }
        }
        #expect(throws: VaultProtocolError.self) { try ProfileGetRequest(payload: ["fields": ["name", "name"]]) }
        #expect(throws: VaultProtocolError.self) { try ProfileGetRequest(payload: ["fields": ["name", 1]]) }
        #expect(throws: VaultProtocolError.self) { try ProfileGetRequest(payload: ["fields": [""]]) }
        #expect(throws: VaultProtocolError.self) { try ProfileUpdateRequest(payload: ["set": ["name": "Ada"], "remove": ["name"]]) }
    }

    @Test func defaultsAndRanges() throws {
        let list = try DatastoreListRequest(payload: [:])
        #expect(list.limit == 100 && list.prefix == nil && list.cursor == nil)
        #expect(try DatastoreListRequest(payload: ["limit": 1000]).limit == 1000)
        #expect(try DatastoreListRequest(payload: ["prefix": ""]).prefix == "")
        for limit: JSONValue in [0, 1001, "10", 10.5] {
            #expect(throws: VaultProtocolError.self) { try DatastoreListRequest(payload: ["limit": limit]) }
        }
        #expect(try ConnectionCreateInviteRequest(payload: [:]).ttlSeconds == 86_400)
        #expect(try ConnectionCreateInviteRequest(payload: ["ttl_seconds": 60]).ttlSeconds == 60)
        #expect(try ConnectionCreateInviteRequest(payload: ["ttl_seconds": 604_800]).ttlSeconds == 604_800)
        for ttl: JSONValue in [59, 604_801] {
            #expect(throws: VaultProtocolError.self) { try ConnectionCreateInviteRequest(payload: ["ttl_seconds": ttl]) }
        }
        #expect(try MessageSendRequest(payload: ["connection_id": "c", "content": "x"]).contentType == "text/plain")
        #expect(try CredentialsRefreshRequest(payload: [:]).requestedTTLHours == nil)
        for hours: JSONValue in [0, 169] {
            #expect(throws: VaultProtocolError.self) { try CredentialsRefreshRequest(payload: ["requested_ttl_hours": hours]) }
        }
        #expect(throws: VaultProtocolError.self) { try ConnectionStoreCredentialsResult(result: ["connection_id": "c", "peer_guid": .string(Fixture.peerGUID), "status": "gone"]) }
        #expect(throws: VaultProtocolError.self) {
            try ConnectionStoreCredentialsResult(result: ["connection_id": "c", "peer_guid": .string(Fixture.peerGUID.uppercased()), "status": "active"])
        }
        #expect(throws: VaultProtocolError.self) { try ConnectionRotateRequest(payload: ["connection_id": "conn.1"]) }
        #expect(throws: VaultProtocolError.self) { try SessionRotateRequest(payload: ["new_app_public_key": .string(Base64URL.encode(Data(count: 33)))]) }
    }

    @Test func nestedObjectsAreStrictToo() throws {
        var item: JSONObject = ["key": "k1", "version": 2, "updated_at": 1]
        #expect(try DatastoreListResult(result: ["items": [.object(item)]]).items.count == 1)
        item["value"] = "leak"
        #expect(throws: VaultProtocolError.self) { try DatastoreListResult(result: ["items": [.object(item)]]) }
        #expect(throws: VaultProtocolError.self) { try DatastoreListResult(result: ["items": ["k1"]]) }
        var summary = PayloadSamples.results[.connectionList]?.json["connections"]?.arrayValue?.first?.objectValue ?? [:]
        summary["rotated_at"] = nil
        #expect(try ConnectionListResult(result: ["connections": [.object(summary)]]).connections.first?.rotatedAt == nil)
        summary["created_at"] = nil
        #expect(throws: VaultProtocolError.self) { try ConnectionListResult(result: ["connections": [.object(summary)]]) }
        var message = PayloadSamples.results[.messageList]?.json["messages"]?.arrayValue?.first?.objectValue ?? [:]
        message["delivered_at"] = nil
        message["read_at"] = nil
        let listed = try MessageListResult(result: ["messages": [.object(message)], "more": true])
        #expect(listed.more && listed.messages.first?.readAt == nil && listed.messages.first?.direction == .outgoing)
        message["direction"] = "sideways"
        #expect(throws: VaultProtocolError.self) { try MessageListResult(result: ["messages": [.object(message)], "more": true]) }
        #expect(throws: VaultProtocolError.self) { try MessageListRequest(payload: ["direction": "both"]) }
        #expect(throws: VaultProtocolError.self) { try MessageListRequest(payload: ["limit": 0]) }
        #expect(try MessageListRequest(payload: [:]) == MessageListRequest())
        #expect(throws: VaultProtocolError.self) {
            try CredentialSyncResult(result: ["credentials": [["credential_id": "c1"]], "deleted": [], "version": 1])
        }
        #expect(throws: VaultProtocolError.self) {
            try CredentialsRefreshResult(result: ["credentials": ["nonce": "AA", "ciphertext": "AAAAAAAAAAAAAAAAAAAAAA"], "expires_at": 1, "credential_id": "c"])
        }
    }

    @Test func typedValuesEncodeWhatTheyHold() throws {
        let add = DatastoreAddRequest(key: "k", value: "v", metadata: ["b": "2", "a": "1"])
        #expect(String(decoding: add.payload.serialized(), as: UTF8.self) == #"{"key":"k","value":"v","metadata":{"a":"1","b":"2"}}"#)
        let send = MessageSendRequest(connectionID: "conn-1", content: "hi")
        #expect(try MessageSendRequest(payload: send.payload) == send)
        let list = ConnectionListResult(connections: [ConnectionSummary(connectionID: "c", peerGUID: Fixture.peerGUID, label: "", status: .pending, createdAt: 1)])
        #expect(try ConnectionListResult(result: list.result) == list)
        let rotate = SessionRotateResult(newVaultPublicKey: Vector.vaultPublicKey, newSessionID: "s2", sessionExpiresAt: 9)
        #expect(try SessionRotateResult(result: rotate.result) == rotate)
    }
}
