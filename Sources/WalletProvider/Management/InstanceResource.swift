import TesseraJOSE

/// How the 1.0+ management API shows an instance. Retrieval (1.0.2 `wallet-provider-endpoint.rst` "Wallet Instance
/// Retrieval Response") asks for "its unique ID, status, and issuance date" without naming members: `id`, `status`
/// (`ACTIVE` or `REVOKED`, the value revocation sets) and `iat` (seconds, as every IT-Wallet date), with `platform`
/// and, once revoked, `revoked_at` and `revocation_reason`. The status resource is the production backend's
/// (io-wallet `GET /wallet-instances/{id}/status`): `{id, is_revoked, revocation_reason?}`.
enum InstanceResource {
    static let active = "ACTIVE"
    static let revoked = "REVOKED"

    static func retrieval(_ row: WalletInstanceRow) -> JSONObject {
        var object: JSONObject = [
            "id": .string(row.id),
            "status": .string(isRevoked(row) ? revoked : active),
            "iat": .integer(Int64(row.created_at)),
            "platform": .string(row.platform),
        ]
        if let at = row.revoked_at { object["revoked_at"] = .integer(Int64(at)) }
        if let reason = row.revocation_reason { object["revocation_reason"] = .string(reason) }
        return object
    }

    static func status(_ row: WalletInstanceRow) -> JSONObject {
        var object: JSONObject = ["id": .string(row.id), "is_revoked": .bool(isRevoked(row))]
        if let reason = row.revocation_reason { object["revocation_reason"] = .string(reason) }
        return object
    }

    static func isRevoked(_ row: WalletInstanceRow) -> Bool { row.status != InstanceStatus.valid.rawValue }
}
