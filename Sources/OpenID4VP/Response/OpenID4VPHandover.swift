import Crypto
import Foundation
import MDoc
import TesseraCBOR

/// The mdoc `Handover` for OpenID4VP invocations via redirects (§B.2.6.1):
/// `OpenID4VPHandover = ["OpenID4VPHandover", sha-256(CBOR(OpenID4VPHandoverInfo))]` with
/// `OpenID4VPHandoverInfo = [clientId, nonce, jwkThumbprint / null, responseUri]`.
public struct OpenID4VPHandover: Sendable, Hashable {
    /// `"OpenID4VPHandover"`, the first element of the Handover array.
    public static let identifier = "OpenID4VPHandover"

    /// The full `client_id` (prefix included).
    public let clientId: String
    /// The request's `nonce`.
    public let nonce: String
    /// RFC 7638 SHA-256 thumbprint of the verifier key the response is encrypted to; nil when unencrypted.
    public let jwkThumbprint: Data?
    /// `response_uri` or `redirect_uri`, whichever the Response Mode uses.
    public let responseURI: String

    /// The handover for one response; `jwkThumbprint` must be the key the response will be encrypted to, or nil.
    public init(clientId: String, nonce: String, jwkThumbprint: Data?, responseURI: String) {
        self.clientId = clientId
        self.nonce = nonce
        self.jwkThumbprint = jwkThumbprint
        self.responseURI = responseURI
    }

    /// The CBOR encoding of OpenID4VPHandoverInfo (definite lengths, no tag 24).
    public var infoBytes: Data {
        CBOR.array([
            .text(clientId), .text(nonce), jwkThumbprint.map(CBOR.bytes) ?? .null, .text(responseURI),
        ]).encoded()
    }

    /// SHA-256 of `infoBytes`.
    public var infoHash: Data { Data(SHA256.hash(data: infoBytes)) }

    /// The Handover array.
    public var cbor: CBOR { [.text(Self.identifier), .bytes(infoHash)] }

    /// The MDoc handover value.
    public var handover: Handover { .other(cbor) }

    /// `SessionTranscript = [null, null, OpenID4VPHandover]` (§B.2.6.1).
    public var sessionTranscript: SessionTranscript {
        SessionTranscript(deviceEngagementBytes: nil, eReaderKeyBytes: nil, handover: handover)
    }
}

/// The mdoc `Handover` for invocations through the Digital Credentials API (B.2.6.2):
/// `["OpenID4VPDCAPIHandover", sha-256(CBOR([origin, nonce, jwkThumbprint / null]))]`. The transport is outside
/// this module; the structure is here so a DC API front end can bind DeviceResponses the same way.
public struct OpenID4VPDCAPIHandover: Sendable, Hashable {
    /// `"OpenID4VPDCAPIHandover"`, the first element of the Handover array.
    public static let identifier = "OpenID4VPDCAPIHandover"

    /// The verifier's web origin, without the `origin:` prefix.
    public let origin: String
    /// The request's `nonce`.
    public let nonce: String
    /// RFC 7638 SHA-256 thumbprint of the verifier key the response is encrypted to; nil when unencrypted.
    public let jwkThumbprint: Data?

    /// The handover for one DC API response.
    public init(origin: String, nonce: String, jwkThumbprint: Data?) {
        self.origin = origin
        self.nonce = nonce
        self.jwkThumbprint = jwkThumbprint
    }

    /// The CBOR encoding of `[origin, nonce, jwkThumbprint / null]` (definite lengths, no tag 24).
    public var infoBytes: Data {
        CBOR.array([.text(origin), .text(nonce), jwkThumbprint.map(CBOR.bytes) ?? .null]).encoded()
    }

    /// SHA-256 of `infoBytes`.
    public var infoHash: Data { Data(SHA256.hash(data: infoBytes)) }
    /// The Handover array.
    public var cbor: CBOR { [.text(Self.identifier), .bytes(infoHash)] }
    /// The MDoc handover value.
    public var handover: Handover { .other(cbor) }

    /// `SessionTranscript = [null, null, OpenID4VPDCAPIHandover]` (B.2.6.2).
    public var sessionTranscript: SessionTranscript {
        SessionTranscript(deviceEngagementBytes: nil, eReaderKeyBytes: nil, handover: handover)
    }
}
