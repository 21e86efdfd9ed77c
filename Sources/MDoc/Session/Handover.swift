import Foundation
import TesseraCBOR

/// `Handover` in the SessionTranscript (§9.1.5.1): how the engagement reached the reader.
public enum Handover: Sendable, Equatable {
    /// QR engagement: `QRHandover = null`.
    case qr
    /// NFC: `NFCHandover = [HandoverSelect, HandoverRequest / null]`, NDEF message bytes as exchanged.
    case nfc(handoverSelect: Data, handoverRequest: Data?)
    /// Any other handover (e.g. OpenID4VP), given as its CBOR item.
    case other(CBOR)

    /// The Handover item as it goes into the SessionTranscript.
    public var cbor: CBOR {
        switch self {
        case .qr: return .null
        case .nfc(let select, let request): return [.bytes(select), request.map(CBOR.bytes) ?? .null]
        case .other(let item): return item
        }
    }

    /// Reads a Handover: `null` is QR, `[bstr, bstr / null]` is NFC, anything else is kept as `.other`.
    public init(cbor: CBOR) {
        switch cbor {
        case .null: self = .qr
        case .array(let a) where a.count == 2:
            if case .bytes(let select) = a[0] {
                switch a[1] {
                case .bytes(let request):
                    self = .nfc(handoverSelect: select, handoverRequest: request)
                    return
                case .null:
                    self = .nfc(handoverSelect: select, handoverRequest: nil)
                    return
                default: break
                }
            }
            self = .other(cbor)
        default: self = .other(cbor)
        }
    }
}
