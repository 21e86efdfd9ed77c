import Foundation
import TesseraJOSE
import VaultProtocol

/// A vault's acknowledgement of a peer envelope it has handled (stored a message, adopted an accept or a rotation):
/// published on `MessageSpace.{sender}.forOwner.ack` as a bare `VaultEnvelope` (direction `vault-to-vault`,
/// session_id = connection_id, the acknowledging vault's own next seq, AAD subject = that subject), plaintext
/// `{seq, message_id?}` — `seq` of the envelope acknowledged, `message_id` when it carried a message (so a late
/// acknowledgement still marks the message delivered). Only vaults speak it, so it lives with the vault host rather
/// than in `PeerMessageKind`; it is authenticated like any peer envelope (it opens only under the connection key).
struct PeerAck: Sendable, Equatable {
    static let kind = "ack"
    static let maxBytes = 1024

    var seq: UInt64
    var messageID: String?

    init(seq: UInt64, messageID: String? = nil) {
        self.seq = seq
        self.messageID = messageID
    }

    /// Strict: `seq` 1…2⁵³, `message_id` a non-empty string of at most 256 bytes, nothing else.
    init(json: Data) throws(VaultProtocolError) {
        guard json.count <= Self.maxBytes, let value = try? JSONValue.parse(json, limits: JSONLimits(maxBytes: Self.maxBytes, maxDepth: 2)),
            let object = value.objectValue
        else { throw .malformed("ack is not a JSON object") }
        guard object.keys.allSatisfy({ $0 == "seq" || $0 == "message_id" }) else { throw .malformed("ack has unknown members") }
        guard case .integer(let seq)? = object["seq"], seq >= 1, UInt64(seq) <= VaultEnvelope.maxSeq else {
            throw .malformed("ack.seq must lie in 1…2^53")
        }
        self.seq = UInt64(seq)
        switch object["message_id"] {
        case nil:
            messageID = nil
        case .string(let id)? where !id.isEmpty && id.utf8.count <= VaultLimits.maxKeyBytes:
            messageID = id
        default:
            throw .malformed("ack.message_id must be a non-empty string of at most \(VaultLimits.maxKeyBytes) bytes")
        }
    }

    func encoded() -> Data {
        var object: JSONObject = ["seq": .integer(Int64(seq))]
        if let messageID { object["message_id"] = .string(messageID) }
        return object.serialized()
    }
}
