import Foundation

/// The additional authenticated data that binds each sealed box to its user and transaction.
public enum LedgerAAD {
    /// The password hash at enrollment: `pw|user_guid|enrollment_session|key_id`; at authentication:
    /// `pw|user_guid|jti|key_id`.
    public static func password(userGUID: String, transaction: String, keyID: String) -> Data {
        Data("pw|\(userGUID)|\(transaction)|\(keyID)".utf8)
    }

    /// The credential blob: `user_guid|cek_version`.
    public static func blob(userGUID: String, cekVersion: Int) -> Data {
        Data("\(userGUID)|\(cekVersion)".utf8)
    }
}
