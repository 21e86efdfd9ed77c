import Foundation
import HolderKit
import TesseraJOSE

/// Drives Valid ⇄ Operational from the wallet's credentials (HolderKit's `CredentialStore`): the PID is an
/// SD-JWT VC whose `vct` starts with `urn:eudi:pid:`, or an mdoc of docType `eu.europa.ec.eudi.pid.1`; it counts
/// while it has not expired. A PID that appears ⇒ PID ISS; one that is gone ⇒ PID DEL, or PID EXP when its
/// record is still there but expired.
public struct PIDSync: Sendable {
    /// The docType of an mdoc PID.
    public static let mdocDocType = "eu.europa.ec.eudi.pid.1"
    /// The `vct` prefix of an SD-JWT VC PID.
    public static let vctPrefix = "urn:eudi:pid:"

    /// The instance's lifecycle, where the PID events are applied.
    public let store: WalletInstanceStore
    /// The wallet's credentials, where PIDs are looked for.
    public let credentials: any CredentialStore

    /// A sync of `credentials` into `store`'s lifecycle.
    public init(store: WalletInstanceStore, credentials: any CredentialStore) {
        self.store = store
        self.credentials = credentials
    }

    /// Applies the event the credentials call for, if any; returns it.
    @discardableResult
    public func sync(at now: Date) throws(WalletInstanceError) -> WalletInstanceEvent? {
        let records: [CredentialRecord]
        do {
            records = try credentials.records()
        } catch {
            throw .storage("cannot read the credentials")
        }
        let pids = records.filter(Self.isPID)
        let valid = pids.contains { Self.expiry(of: $0).map { $0 > now } ?? true }
        let state = try store.load().state
        let event: WalletInstanceEvent?
        switch (state, valid) {
        case (.operational, true): event = .pidIssued
        case (.valid, false): event = pids.isEmpty ? .pidDeleted : .pidExpired
        default: event = nil
        }
        if let event { try store.apply(event, at: now) }
        return event
    }

    /// Called when the provider says this instance's PID was revoked (a newer instance took it over).
    public func pidRevoked(at now: Date) throws(WalletInstanceError) {
        try store.apply(.pidRevoked, at: now)
    }

    static func isPID(_ record: CredentialRecord) -> Bool {
        (record.format == CredentialRecord.sdJWTFormat && record.type.hasPrefix(vctPrefix))
            || (record.format == CredentialRecord.mdocFormat && record.type == mdocDocType)
    }

    /// The SD-JWT VC's `exp` (the issuer-signed JWT before the first `~`); nil when it has none or is an mdoc.
    static func expiry(of record: CredentialRecord) -> Date? {
        guard record.format == CredentialRecord.sdJWTFormat else { return nil }
        let text = String(decoding: record.data, as: UTF8.self)
        guard let jwt = text.split(separator: "~", maxSplits: 1).first, let jws = try? CompactJWS(parsing: jwt),
            let exp = (try? jws.payloadJSON())?["exp"]?.int64Value
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(exp))
    }
}
