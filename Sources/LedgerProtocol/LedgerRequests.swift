import Crypto
import Foundation
import TesseraJOSE
import TesseraCore

/// The request bodies of the ledger's `/api/v1` endpoints as typed values (ledger-wire.md). Parsing is pure, so
/// the ledger and the fuzz target run the same code; a body that breaks a rule throws `.malformed` naming the
/// member, which the ledger answers with 400 `invalid_request`. Unknown members are ignored.
enum LedgerMember {
    /// A non-empty string of at most `max` UTF-8 bytes.
    static func string(_ json: JSONObject, _ name: String, max: Int = 256) throws(LedgerProtocolError) -> String {
        guard let value = json[name]?.stringValue, !value.isEmpty, value.utf8.count <= max else {
            throw .malformed("\(name) must be a non-empty string of at most \(max) bytes")
        }
        return value
    }

    static func sealed(_ json: JSONObject, _ name: String) throws(LedgerProtocolError) -> SealedBox {
        do {
            return try SealedBox(json: json[name]?.objectValue)
        } catch {
            throw .malformed("\(name): \(error.description)")
        }
    }

    /// A version number: an integer in 0…2³¹−1 (rows store it as a 32-bit integer on every database).
    static func version(_ value: JSONValue?, _ name: String) throws(LedgerProtocolError) -> Int {
        guard let number = value?.int64Value, (0...Int64(Int32.max)).contains(number) else {
            throw .malformed("\(name) must be an integer in 0…\(Int32.max)")
        }
        return Int(number)
    }
}

/// `POST /api/v1/enroll/start`.
public struct EnrollStartRequest: Sendable, Equatable {
    public let invitationCode: String
    public let deviceID: String
    public let deviceType: String
    /// Ed25519, raw 32 bytes.
    public let devicePublicKey: Data

    public init(json: JSONObject) throws(LedgerProtocolError) {
        invitationCode = try LedgerMember.string(json, "invitation_code", max: 128)
        deviceID = try LedgerMember.string(json, "device_id")
        deviceType = try LedgerMember.string(json, "device_type", max: 64)
        guard let key = Base64URL.bytes(try LedgerMember.string(json, "device_public_key", max: 64)), key.count == 32,
            (try? Curve25519.Signing.PublicKey(rawRepresentation: key)) != nil
        else { throw .malformed("device_public_key must be an Ed25519 public key (32 bytes, base64url)") }
        devicePublicKey = key
    }

    public var json: JSONObject {
        [
            "invitation_code": .string(invitationCode), "device_id": .string(deviceID), "device_type": .string(deviceType),
            "device_public_key": .string(Base64URL.encode(devicePublicKey)),
        ]
    }
}

/// `POST /api/v1/enroll/set-password`.
public struct SetPasswordRequest: Sendable, Equatable {
    public let enrollmentSession: String
    public let userGUID: String
    public let keyID: String
    public let password: SealedBox

    public init(json: JSONObject) throws(LedgerProtocolError) {
        enrollmentSession = try LedgerMember.string(json, "enrollment_session", max: 128)
        userGUID = try LedgerMember.string(json, "user_guid", max: 64)
        keyID = try LedgerMember.string(json, "key_id", max: 64)
        password = try LedgerMember.sealed(json, "password")
    }

    public var json: JSONObject {
        [
            "enrollment_session": .string(enrollmentSession), "user_guid": .string(userGUID), "key_id": .string(keyID),
            "password": .object(password.json),
        ]
    }
}

/// `POST /api/v1/enroll/finalize`.
public struct FinalizeRequest: Sendable, Equatable {
    public let enrollmentSession: String
    public let userGUID: String

    public init(json: JSONObject) throws(LedgerProtocolError) {
        enrollmentSession = try LedgerMember.string(json, "enrollment_session", max: 128)
        userGUID = try LedgerMember.string(json, "user_guid", max: 64)
    }

    public var json: JSONObject { ["enrollment_session": .string(enrollmentSession), "user_guid": .string(userGUID)] }
}

/// `POST /api/v1/action/request` (device-signed: the signature covers the bytes received, not this value).
public struct ActionRequest: Sendable, Equatable {
    public let userGUID: String
    public let actionType: String
    public let clientNonce: String
    /// The version of the LAT the device holds, when it says: the ledger proves that LAT (the current one, or the
    /// previous one while the device has not yet used the credential package that replaced it). Absent: current.
    public let latVersion: Int?

    public init(userGUID: String, actionType: String, clientNonce: String, latVersion: Int?) {
        self.userGUID = userGUID
        self.actionType = actionType
        self.clientNonce = clientNonce
        self.latVersion = latVersion
    }

    public init(json: JSONObject) throws(LedgerProtocolError) {
        userGUID = try LedgerMember.string(json, "user_guid", max: 64)
        actionType = try LedgerMember.string(json, "action_type", max: 64)
        clientNonce = try LedgerMember.string(json, "client_nonce", max: 128)
        latVersion = json.contains("lat_version") ? try LedgerMember.version(json["lat_version"], "lat_version") : nil
    }

    public var json: JSONObject {
        var json: JSONObject = ["user_guid": .string(userGUID), "action_type": .string(actionType), "client_nonce": .string(clientNonce)]
        if let latVersion { json["lat_version"] = .integer(Int64(latVersion)) }
        return json
    }
}

/// `POST /api/v1/auth/execute` (the action token travels as `Authorization: Bearer`).
public struct ExecuteRequest: Sendable, Equatable {
    public let keyID: String
    public let password: SealedBox
    public let blob: SealedBox
    /// The CEK version the blob is sealed to (`blob.cek_version`).
    public let cekVersion: Int

    public init(json: JSONObject) throws(LedgerProtocolError) {
        keyID = try LedgerMember.string(json, "key_id", max: 64)
        password = try LedgerMember.sealed(json, "password")
        blob = try LedgerMember.sealed(json, "blob")
        cekVersion = try LedgerMember.version(json["blob"]?["cek_version"], "blob.cek_version")
    }

    public var json: JSONObject {
        var blobJSON = blob.json
        blobJSON["cek_version"] = .integer(Int64(cekVersion))
        return ["key_id": .string(keyID), "password": .object(password.json), "blob": .object(blobJSON)]
    }
}
