import Crypto
import Foundation
import TesseraCBOR

extension DeviceEngagement.Security {
    /// The BLE Ident characteristic value (§8.3.3.1.1.4): HKDF-SHA256 with IKM = EDeviceKeyBytes
    /// (the tag-24 item), no salt, info "BLEIdent", 16 bytes. Both sides derive it from the engagement,
    /// so a reader (or, in central client mode, the mdoc) can tell it reached the right peer.
    public var bleIdent: Data {
        let ikm = SymmetricKey(data: CBOR.encodeTag24(eDeviceKeyBytes.bytes))
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, info: Data("BLEIdent".utf8), outputByteCount: 16)
        return key.withUnsafeBytes { Data($0) }
    }
}
