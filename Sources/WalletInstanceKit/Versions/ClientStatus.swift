import Foundation
import TesseraJOSE
import TokenStatusList

/// The 1.5 WIA's `client_status` (IT-Wallet 1.5.0 "Wallet Instance Attestation", Token Status List §6.2):
/// `{"status": {"status_list": {"idx", "uri"}}, "exp"}` — where the provider publishes this instance's status and
/// until when it maintains the entry.
public struct ClientStatusReference: Codable, Sendable, Equatable {
    /// `status.status_list.uri`: the Status List Token's URL (its `sub`).
    public var uri: String
    /// `status.status_list.idx`.
    public var index: Int
    /// `exp`: until when the provider keeps the entry maintained.
    public var maintainedUntil: Date?

    /// Reads `client_status` from WIA claims.
    init(claims: JSONObject) throws(AttestationCheckError) {
        guard let clientStatus = claims["client_status"], let status = clientStatus["status"],
            let reference = try? StatusListReference(claim: status)
        else { throw .missingClaim("client_status.status.status_list") }
        uri = reference.uri
        index = reference.index
        maintainedUntil = clientStatus["exp"]?.int64Value.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}

/// What the wallet read at its `client_status` entry.
public struct ClientStatusReading: Sendable, Equatable {
    /// The entry's status value (TSL §7.1: 0x00 VALID, 0x01 INVALID, 0x02 SUSPENDED).
    public let status: UInt8
    /// The Status List Token's `iat`.
    public let listIssuedAt: Date
    /// Whether the value is VALID.
    public var isValid: Bool { status == StatusList.valid }
}

/// Fetches and verifies the Status List Token at a `client_status` URI (TSL §8.3): `application/statuslist+jwt`,
/// `x5c` to the same anchors as the WIA, `sub` = the URI exactly, `iat`/`exp` current; then reads the entry's bits.
struct ClientStatusChecker: Sendable {
    let exchange: ProviderExchange
    let verifier: AttestationVerifier

    func read(_ reference: ClientStatusReference, at now: Date) async throws(WalletInstanceError) -> ClientStatusReading {
        guard let url = URL(string: reference.uri) else { throw .attestation(.statusList("uri is not a URL")) }
        let response = try await exchange.get(url, accept: StatusListMediaType.jwt)
        do throws(StatusListError) {
            let token = try StatusListToken(parsing: String(decoding: response.body, as: UTF8.self))
            _ = try await token.verifySignature(trustAnchors: verifier.anchors, at: now)
            try token.claims.validate(fetchedFrom: reference.uri, at: now, skew: 60)
            return ClientStatusReading(status: try token.claims.statusList.status(at: reference.index), listIssuedAt: token.claims.issuedAt)
        } catch {
            throw .attestation(.statusList("\(error)"))
        }
    }
}
