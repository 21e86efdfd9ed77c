import Foundation
import Testing
import TesseraJOSE
import VaultProtocol

/// One decoder of the catalogue with a sample that fills every member, for the table-driven tests.
struct PayloadSample: CustomTestStringConvertible, Sendable {
    let name: String
    let json: JSONObject
    /// Members that may be left out.
    let optional: Set<String>
    /// Decodes and encodes again.
    let roundTrip: @Sendable (JSONObject) throws(VaultProtocolError) -> JSONObject

    var testDescription: String { name }

    /// The longest string each member takes, when not the default `VaultLimits.maxKeyBytes`.
    static let stringLimits: [String: Int] = [
        "value": VaultLimits.maxValueBytes, "content": VaultLimits.maxValueBytes, "credential": VaultLimits.maxValueBytes,
        "invite": VaultLimits.maxValueBytes, "message": VaultLimits.maxValueBytes, "nats_endpoint": ConnectionInvite.maxEndpointBytes,
        "credentials": ConnectionInvite.maxCredentialsBytes,
    ]
}

private let key = Fixture.appPublicKeyB64
private let sealed: JSONValue = ["nonce": "oKGio6Slpqeoqaqr", "ciphertext": "AAAAAAAAAAAAAAAAAAAAAA"]
private let record: JSONValue = [
    "credential_id": "c1", "format": "dc+sd-jwt", "credential": "eyJhbGciOiJFUzI1NiJ9.e30.sig~", "metadata": ["issuer": "https://i.example"],
    "version": 4, "updated_at": 1_700_000_000,
]

private func request(_ handler: VaultHandler, _ json: JSONObject, optional: Set<String> = []) -> PayloadSample {
    let type = handler.requestType
    return PayloadSample(name: handler.rawValue + " request", json: json, optional: optional) { json throws(VaultProtocolError) in
        try type.init(payload: json).payload
    }
}

private func result(_ handler: VaultHandler, _ json: JSONObject, optional: Set<String> = []) -> PayloadSample {
    let type = handler.resultType
    return PayloadSample(name: handler.rawValue + " result", json: json, optional: optional) { json throws(VaultProtocolError) in
        try type.init(result: json).result
    }
}

private func push(_ notification: VaultNotification, _ json: JSONObject, optional: Set<String> = []) -> PayloadSample {
    let type = notification.payloadType
    return PayloadSample(name: notification.rawValue + " push", json: json, optional: optional) { json throws(VaultProtocolError) in
        try type.init(payload: json).payload
    }
}

private func peer(_ kind: PeerMessageKind, _ json: JSONObject, optional: Set<String> = []) -> PayloadSample {
    let type = kind.bodyType
    return PayloadSample(name: kind.rawValue + " peer body", json: json, optional: optional) { json throws(VaultProtocolError) in
        try type.init(json: json).json
    }
}

enum PayloadSamples {
    static let requests: [VaultHandler: PayloadSample] = [
        .datastoreAdd: request(.datastoreAdd, ["key": "k1", "value": "secret", "metadata": ["kind": "password"]], optional: ["metadata"]),
        .datastoreUpdate: request(.datastoreUpdate, ["key": "k1", "value": "secret 2", "expected_version": 1], optional: ["expected_version"]),
        .datastoreRetrieve: request(.datastoreRetrieve, ["key": "k1"]),
        .datastoreDelete: request(.datastoreDelete, ["key": "k1"]),
        .datastoreList: request(.datastoreList, ["prefix": "k", "limit": 10, "cursor": "k1"], optional: ["prefix", "limit", "cursor"]),
        .profileGet: request(.profileGet, ["fields": ["name", "email"]], optional: ["fields"]),
        .profileUpdate: request(.profileUpdate, ["set": ["name": "Ada"], "remove": ["email"]], optional: ["set", "remove"]),
        .profileDelete: request(.profileDelete, [:]),
        .profileBroadcast: request(.profileBroadcast, ["fields": ["name"]], optional: ["fields"]),
        .credentialStore: request(
            .credentialStore, ["credential_id": "c1", "format": "dc+sd-jwt", "credential": "eyJ.e30.sig~", "metadata": ["issuer": "i"]],
            optional: ["credential_id", "metadata"]),
        .credentialSync: request(.credentialSync, ["since_version": 0]),
        .credentialGet: request(.credentialGet, ["credential_id": "c1"]),
        .credentialVersion: request(.credentialVersion, [:]),
        .credentialsRefresh: request(.credentialsRefresh, ["requested_ttl_hours": 24], optional: ["requested_ttl_hours"]),
        .credentialsStatus: request(.credentialsStatus, [:]),
        .connectionCreateInvite: request(.connectionCreateInvite, ["label": "Bob", "ttl_seconds": 3600], optional: ["label", "ttl_seconds"]),
        .connectionStoreCredentials: request(.connectionStoreCredentials, ["invite": "eyJ2IjoxfQ", "label": "Alice"], optional: ["label"]),
        .connectionRotate: request(.connectionRotate, ["connection_id": "conn-1"]),
        .connectionRevoke: request(.connectionRevoke, ["connection_id": "conn-1"]),
        .connectionList: request(.connectionList, [:]),
        .connectionGetCredentials: request(.connectionGetCredentials, ["connection_id": "conn-1"]),
        .connectionNotifyRevoke: request(.connectionNotifyRevoke, ["connection_id": "conn-1", "reason": "done"], optional: ["reason"]),
        .messageSend: request(
            .messageSend, ["connection_id": "conn-1", "content": "hello", "content_type": "text/markdown", "message_id": "m1"],
            optional: ["content_type", "message_id"]),
        .messageReadReceipt: request(.messageReadReceipt, ["connection_id": "conn-1", "message_id": "m1"]),
        .messageList: request(
            .messageList, ["connection_id": "conn-1", "direction": "in", "unread_only": true, "offset": 100, "limit": 50],
            optional: ["connection_id", "direction", "unread_only", "offset", "limit"]),
        .sessionRotate: request(.sessionRotate, ["new_app_public_key": .string(key)]),
    ]

    static let results: [VaultHandler: PayloadSample] = [
        .datastoreAdd: result(.datastoreAdd, ["key": "k1", "version": 1]),
        .datastoreUpdate: result(.datastoreUpdate, ["key": "k1", "version": 2]),
        .datastoreRetrieve: result(
            .datastoreRetrieve, ["key": "k1", "value": "secret", "metadata": ["kind": "password"], "version": 2, "updated_at": 1_700_000_000],
            optional: ["metadata"]),
        .datastoreDelete: result(.datastoreDelete, ["key": "k1", "deleted": true]),
        .datastoreList: result(
            .datastoreList, ["items": [["key": "k1", "version": 2, "updated_at": 1_700_000_000]], "next_cursor": "k1"], optional: ["next_cursor"]),
        .profileGet: result(.profileGet, ["profile": ["name": "Ada"], "version": 3]),
        .profileUpdate: result(.profileUpdate, ["version": 4]),
        .profileDelete: result(.profileDelete, ["deleted": true]),
        .profileBroadcast: result(.profileBroadcast, ["sent_to": 2]),
        .credentialStore: result(.credentialStore, ["credential_id": "c1", "version": 4]),
        .credentialSync: result(.credentialSync, ["credentials": [record], "deleted": ["c0"], "version": 5]),
        .credentialGet: result(.credentialGet, record.objectValue ?? [:], optional: ["metadata"]),
        .credentialVersion: result(.credentialVersion, ["version": 5]),
        .credentialsRefresh: result(.credentialsRefresh, ["credentials": sealed, "expires_at": 1_700_086_400, "credential_id": "cred-2"]),
        .credentialsStatus: result(.credentialsStatus, ["credential_id": "cred-2", "expires_at": 1_700_086_400, "ttl_seconds": 3600]),
        .connectionCreateInvite: result(.connectionCreateInvite, ["connection_id": "conn-1", "invite": "eyJ2IjoxfQ", "expires_at": 1_700_086_400]),
        .connectionStoreCredentials: result(.connectionStoreCredentials, ["connection_id": "conn-1", "peer_guid": .string(Fixture.peerGUID), "status": "active"]),
        .connectionRotate: result(.connectionRotate, ["connection_id": "conn-1", "rotated_at": 1_700_000_100]),
        .connectionRevoke: result(.connectionRevoke, ["connection_id": "conn-1", "revoked": true]),
        .connectionList: result(
            .connectionList,
            [
                "connections": [
                    [
                        "connection_id": "conn-1", "peer_guid": .string(Fixture.peerGUID), "label": "Bob", "status": "active",
                        "created_at": 1_700_000_000, "rotated_at": 1_700_000_100,
                    ]
                ]
            ]),
        .connectionGetCredentials: result(
            .connectionGetCredentials,
            [
                "connection_id": "conn-1", "peer_guid": .string(Fixture.peerGUID),
                "subjects": .array([.string(VaultSubjects.peer(Fixture.guid, kind: ">"))]), "expires_at": 1_700_086_400,
            ]),
        .connectionNotifyRevoke: result(.connectionNotifyRevoke, ["connection_id": "conn-1"]),
        .messageSend: result(.messageSend, ["message_id": "m1", "sent_at": 1_700_000_000, "delivered": true]),
        .messageReadReceipt: result(.messageReadReceipt, ["message_id": "m1", "read_at": 1_700_000_050]),
        .messageList: result(
            .messageList,
            [
                "messages": [
                    [
                        "connection_id": "conn-1", "message_id": "m1", "direction": "out", "content": "hi", "content_type": "text/plain",
                        "sent_at": 1_700_000_000, "stored_at": 1_700_000_001, "delivered_at": 1_700_000_002, "read_at": 1_700_000_050,
                    ]
                ],
                "more": false,
            ]),
        .sessionRotate: result(.sessionRotate, ["new_vault_public_key": .string(key), "new_session_id": "sess-2", "session_expires_at": 1_700_086_400]),
    ]

    static let pushes: [PayloadSample] = [
        push(.newMessage, ["message_id": "m1", "connection_id": "conn-1", "content": "hi", "content_type": "text/plain", "sent_at": 1_700_000_000]),
        push(.readReceipt, ["message_id": "m1", "connection_id": "conn-1", "read_at": 1_700_000_050]),
        push(.profileUpdate, ["connection_id": "conn-1", "profile": ["name": "Bob"]]),
        push(.connectionRevoked, ["connection_id": "conn-1", "reason": "done"], optional: ["reason"]),
        push(.credentialsRotate, ["credentials": sealed, "expires_at": 1_700_086_400, "credential_id": "cred-3"]),
    ]

    static let peerBodies: [PayloadSample] = [
        peer(.message, ["message_id": "m1", "content": "hi", "content_type": "text/plain", "sent_at": 1_700_000_000]),
        peer(.readReceipt, ["message_id": "m1", "read_at": 1_700_000_050]),
        peer(.profile, ["profile": ["name": "Bob"], "version": 2]),
        peer(.connectionAccept, ["credentials": "-----BEGIN NATS USER JWT-----", "accepter_guid": .string(Fixture.peerGUID)]),
        peer(.connectionRevoke, ["reason": "done"], optional: ["reason"]),
        peer(.connectionRotate, ["credentials": "-----BEGIN NATS USER JWT-----"], optional: ["credentials"]),
    ]

    static let others: [PayloadSample] = [
        PayloadSample(
            name: "bootstrap payload",
            json: ["device_id": "d1", "device_type": "ios", "app_version": "1.0", "requested_ttl_hours": 24, "app_session_public_key": .string(key)],
            optional: []
        ) { json throws(VaultProtocolError) in try BootstrapPayload(json: json).json },
        PayloadSample(
            name: "session info",
            json: [
                "session_id": "sess-1", "vault_session_public_key": .string(key), "session_expires_at": 1_700_086_400, "encryption_enabled": true,
                "app_session_public_key": .string(key),
            ],
            optional: []
        ) { json throws(VaultProtocolError) in try SessionInfo(json: json).json },
        PayloadSample(name: "sealed credentials", json: sealed.objectValue ?? [:], optional: []) { json throws(VaultProtocolError) in
            try SealedCredentials(json: json).json
        },
        PayloadSample(
            name: "connection invite",
            json: [
                "v": 1, "connection_id": "conn-1", "inviter_guid": .string(Fixture.guid), "inviter_connection_key": .string(key),
                "credentials": "-----BEGIN NATS USER JWT-----", "nats_endpoint": "nats://127.0.0.1:4222", "expires_at": 1_700_086_400, "label": "Ada",
            ],
            optional: ["label"]
        ) { json throws(VaultProtocolError) in try ConnectionInvite(json: json).json },
    ]

    static var all: [PayloadSample] {
        VaultHandler.allCases.compactMap { requests[$0] } + VaultHandler.allCases.compactMap { results[$0] } + pushes + peerBodies + others
    }
}
