import Foundation
import TesseraJOSE
import Testing
import VaultProtocol

@Suite struct VaultEventTests {
    @Test func messageRoundTrip() throws {
        let message = VaultEventMessage(
            id: "6f1c0c1e-8a8b-4a53-9d1e-0c7f3b2a1d00", type: "secrets.datastore.add", payload: ["key": "k", "value": "v"],
            timestamp: 1_700_000_000)
        let bytes = message.encoded()
        #expect(String(decoding: bytes, as: UTF8.self)
            == #"{"id":"6f1c0c1e-8a8b-4a53-9d1e-0c7f3b2a1d00","type":"secrets.datastore.add","payload":{"key":"k","value":"v"},"timestamp":1700000000}"#)
        #expect(try VaultEventMessage(json: bytes) == message)
        #expect(try VaultPlaintext(json: bytes) == .message(message))
    }

    @Test func responseRoundTrips() throws {
        let success = VaultEventResponse.success(eventID: "e1", result: ["version": 3], timestamp: 5)
        #expect(try VaultEventResponse(json: success.encoded()) == success)
        #expect(try VaultPlaintext(json: success.encoded()) == .response(success))
        let empty = VaultEventResponse.success(eventID: "e1", result: nil, timestamp: 5)
        #expect(try VaultEventResponse(json: empty.encoded()) == empty)
        let failure = VaultEventResponse.failure(eventID: "e2", error: VaultEventError(code: "not_found", message: "no such key"), timestamp: 6)
        #expect(String(decoding: failure.encoded(), as: UTF8.self)
            == #"{"event_id":"e2","success":false,"timestamp":6,"error":{"code":"not_found","message":"no such key"}}"#)
        #expect(try VaultEventResponse(json: failure.encoded()) == failure)
        #expect(try VaultPlaintext(json: failure.encoded()) == .response(failure))
    }

    @Test(arguments: [
        #"{"type":"profile.get","payload":{},"timestamp":1}"#,  // missing id
        #"{"id":"e1","payload":{},"timestamp":1}"#,  // missing type
        #"{"id":"e1","type":"profile.get","timestamp":1}"#,  // missing payload
        #"{"id":"e1","type":"profile.get","payload":{}}"#,  // missing timestamp
        #"{"id":"e1","type":"profile.get","payload":{},"timestamp":1,"extra":0}"#,  // unknown field
        #"{"id":1,"type":"profile.get","payload":{},"timestamp":1}"#,  // wrong type
        #"{"id":"e1","type":"profile.get","payload":[],"timestamp":1}"#,
        #"{"id":"e1","type":"profile.get","payload":{},"timestamp":1.5}"#,
        #"{"id":"e1","type":"profile.get","payload":{},"timestamp":-1}"#,
        #"{"id":"e1","type":"profile.get","payload":{},"timestamp":"1"}"#,
        #"{"id":"e.1","type":"profile.get","payload":{},"timestamp":1}"#,  // id is no subject token
        #"{"id":"e>","type":"profile.get","payload":{},"timestamp":1}"#,
        #"{"id":"","type":"profile.get","payload":{},"timestamp":1}"#,
        #"{"id":"e1","type":"profile..get","payload":{},"timestamp":1}"#,  // empty token in type
        #"{"id":"e1","type":"profile.*","payload":{},"timestamp":1}"#,
        #"{"id":"e1","type":"","payload":{},"timestamp":1}"#,
        #"{"id":"e1","id":"e2","type":"profile.get","payload":{},"timestamp":1}"#,  // duplicate member
        #"[1]"#, #"{"id":"e1""#, "",
    ])
    func malformedMessages(_ text: String) {
        #expect(throws: VaultProtocolError.self) { try VaultEventMessage(json: Data(text.utf8)) }
        #expect(throws: VaultProtocolError.self) { try VaultPlaintext(json: Data(text.utf8)) }
    }

    @Test(arguments: [
        #"{"success":true,"timestamp":1}"#,  // missing event_id (reads as a message: missing id)
        #"{"event_id":"e1","timestamp":1}"#,
        #"{"event_id":"e1","success":true}"#,
        #"{"event_id":"e1","success":"yes","timestamp":1}"#,
        #"{"event_id":"e1","success":true,"timestamp":1,"error":{"code":"x","message":""}}"#,  // success with error
        #"{"event_id":"e1","success":false,"timestamp":1}"#,  // failure without error
        #"{"event_id":"e1","success":false,"timestamp":1,"result":{},"error":{"code":"x","message":""}}"#,
        #"{"event_id":"e1","success":false,"timestamp":1,"error":{"code":"","message":""}}"#,
        #"{"event_id":"e1","success":false,"timestamp":1,"error":{"code":"x"}}"#,
        #"{"event_id":"e1","success":false,"timestamp":1,"error":{"code":"x","message":"","more":1}}"#,
        #"{"event_id":"e1","success":true,"timestamp":1,"result":null}"#,
        #"{"event_id":"e1","success":true,"timestamp":1,"result":[]}"#,
        #"{"event_id":"e1","success":true,"timestamp":1,"id":"e1"}"#,
    ])
    func malformedResponses(_ text: String) {
        #expect(throws: VaultProtocolError.self) { try VaultEventResponse(json: Data(text.utf8)) }
        #expect(throws: VaultProtocolError.self) { try VaultPlaintext(json: Data(text.utf8)) }
    }

    @Test func sizeAndDepthLimits() {
        let big = Data(#"{"id":"e1","type":"t","payload":{"v":""#.utf8) + Data(repeating: 0x61, count: VaultLimits.maxMessageBytes) + Data(#""},"timestamp":1}"#.utf8)
        #expect(throws: VaultProtocolError.tooLarge(limit: VaultLimits.maxMessageBytes)) { try VaultEventMessage(json: big) }
        let deep = Data((#"{"id":"e1","type":"t","timestamp":1,"payload":"# + String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 41)).utf8)
        #expect(throws: VaultProtocolError.self) { try VaultEventMessage(json: deep) }
        let error = VaultEventError(code: string(257), message: "")
        let response = VaultEventResponse.failure(eventID: "e1", error: error, timestamp: 1)
        #expect(throws: VaultProtocolError.self) { try VaultEventResponse(json: response.encoded()) }
    }

    @Test func typedRequestFromEvent() throws {
        let event = DatastoreAddRequest(key: "k", value: "v").event(id: "e1", timestamp: 1)
        #expect(event.handler == .datastoreAdd)
        #expect(try event.request(DatastoreAddRequest.self) == DatastoreAddRequest(key: "k", value: "v"))
        #expect(throws: VaultProtocolError.self) { try event.request(DatastoreDeleteRequest.self) }
        let failure = VaultEventResponse.failure(eventID: "e1", error: VaultEventError(code: "conflict", message: "m"), timestamp: 1)
        #expect(throws: VaultProtocolError.eventFailed(VaultEventError(code: "conflict", message: "m"))) {
            try failure.result(DatastoreWriteResult.self)
        }
        let success = VaultEventResponse.success(eventID: "e1", result: DatastoreWriteResult(key: "k", version: 2).result, timestamp: 1)
        #expect(try success.result(DatastoreWriteResult.self) == DatastoreWriteResult(key: "k", version: 2))
    }
}
