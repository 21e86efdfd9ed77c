import Foundation
import TesseraCBOR
import TesseraCOSE

/// DeviceEngagement (ISO/IEC 18013-5:2021 §8.2.1.1):
/// `{0: version, 1: Security, ? 2: DeviceRetrievalMethods, ? 3: ServerRetrievalMethods,
///   ? 4: ProtocolInfo, ? 5: OriginInfos, * int => any}`.
///
/// A received engagement is kept with its exact bytes (`EncodedCBOR`), and only those bytes go
/// into the SessionTranscript (isomdl #131: re-encoding broke Apple Wallet). Keys this version
/// does not know are kept in `unknownEntries`.
public struct DeviceEngagement: Sendable, Equatable {
    /// Key 0: `"1.0"` when built here; a received engagement must have a version starting with `"1."` (§8.2.1.1).
    public var version: String
    /// Key 1: the cipher suite and the mdoc's ephemeral key, bytes as received.
    public var security: Security
    /// Key 2: the transports the mdoc offers (NFC, BLE, Wi-Fi Aware); empty when the key is absent.
    public var deviceRetrievalMethods: [DeviceRetrievalMethod]
    /// Key 3 (ServerRetrievalMethods, withdrawn in later editions): kept, not interpreted.
    public var serverRetrievalMethods: CBOR?
    /// Key 4 (ProtocolInfo): kept, not interpreted.
    public var protocolInfo: CBOR?
    /// Key 5: where the engagement came from (§8.2.1.1); empty when the key is absent.
    public var originInfos: [OriginInfo]
    /// Entries with keys this implementation does not know (ISO 18013-5 §8.2.1.1 allows them).
    public var unknownEntries: [CBORMap.Entry]

    /// An engagement for the holder to present. Encode it once with `encoded()` and keep those bytes: they go
    /// into the QR code and the SessionTranscript.
    public init(
        version: String = "1.0", security: Security, deviceRetrievalMethods: [DeviceRetrievalMethod] = [],
        originInfos: [OriginInfo] = []
    ) {
        self.version = version
        self.security = security
        self.deviceRetrievalMethods = deviceRetrievalMethods
        self.serverRetrievalMethods = nil
        self.protocolInfo = nil
        self.originInfos = originInfos
        self.unknownEntries = []
    }

    /// `Security = [cipherSuiteIdentifier: int, EDeviceKeyBytes]` (§8.2.1.1).
    public struct Security: Sendable, Equatable {
        /// 1 is the only suite ISO/IEC 18013-5:2021 defines (§9.1.5.2).
        public var cipherSuiteIdentifier: Int
        /// `EDeviceKeyBytes = #6.24(bstr .cbor EDeviceKey)`, bytes kept.
        public var eDeviceKeyBytes: EncodedCBOR<CBOR>

        /// Wraps the public part of `eDeviceKey` as a tag-24 item, encoded once here.
        /// - Throws: `MDocError.invalidEphemeralKey` when the key cannot be encoded.
        public init(cipherSuiteIdentifier: Int = 1, eDeviceKey: COSEKey) throws(MDocError) {
            self.cipherSuiteIdentifier = cipherSuiteIdentifier
            do {
                self.eDeviceKeyBytes = try EncodedCBOR(encoding: eDeviceKey.publicKey.cbor)
            } catch {
                throw .invalidEphemeralKey("cannot encode: \(error)")
            }
        }

        init(cipherSuiteIdentifier: Int, eDeviceKeyBytes: EncodedCBOR<CBOR>) {
            self.cipherSuiteIdentifier = cipherSuiteIdentifier
            self.eDeviceKeyBytes = eDeviceKeyBytes
        }

        /// The mdoc's ephemeral public key.
        public func eDeviceKey() throws(MDocError) -> COSEKey {
            do {
                return try COSEKey(cbor: eDeviceKeyBytes.value)
            } catch {
                throw .cose(structure: "EDeviceKey", error)
            }
        }
    }

    // MARK: CBOR

    /// Reads a DeviceEngagement from its bytes (the QR payload or DeviceEngagementBytes content).
    public init(bytes: Data) throws(MDocError) {
        let item: CBOR
        do {
            item = try CBOR.decode(bytes)
        } catch {
            throw .malformed(structure: "DeviceEngagement", error)
        }
        try self.init(cbor: item)
    }

    /// Reads a decoded DeviceEngagement. The EDeviceKey is decoded now, so a bad key fails here.
    /// - Throws: `MDocError.unsupportedVersion` for a version other than `1.x`, `.invalidStructure` or `.cose` otherwise.
    public init(cbor item: CBOR) throws(MDocError) {
        func fail(_ reason: String) -> MDocError { .invalidStructure(structure: "DeviceEngagement", reason: reason) }
        guard case .map(let map) = item else { throw fail("not a map") }
        guard case .text(let version)? = map[0] else { throw fail("version (0) missing or not text") }
        guard version.hasPrefix("1.") else { throw .unsupportedVersion(structure: "DeviceEngagement", version: version) }
        guard case .array(let sec)? = map[1], sec.count == 2, let suite = sec[0].intValue,
            case .tagged(CBORTag.encodedCBOR, .bytes(let keyBytes)) = sec[1]
        else { throw fail("Security (1) must be [cipherSuiteIdentifier, #6.24(EDeviceKey)]") }
        let eDeviceKeyBytes: EncodedCBOR<CBOR>
        do {
            eDeviceKeyBytes = try EncodedCBOR(bytes: keyBytes)
        } catch {
            throw fail("EDeviceKeyBytes is not CBOR: \(error)")
        }
        self.version = version
        self.security = Security(cipherSuiteIdentifier: suite, eDeviceKeyBytes: eDeviceKeyBytes)
        // Validate the key now, so a bad engagement fails where it is read.
        _ = try security.eDeviceKey()

        if let methods = map[2] {
            guard case .array(let list) = methods else { throw fail("DeviceRetrievalMethods (2) must be an array") }
            self.deviceRetrievalMethods = try list.map { (m: CBOR) throws(MDocError) in try DeviceRetrievalMethod(cbor: m) }
        } else {
            self.deviceRetrievalMethods = []
        }
        self.serverRetrievalMethods = map[3]
        self.protocolInfo = map[4]
        if let origins = map[5] {
            guard case .array(let list) = origins else { throw fail("OriginInfos (5) must be an array") }
            self.originInfos = try list.map { (o: CBOR) throws(MDocError) in try OriginInfo(cbor: o) }
        } else {
            self.originInfos = []
        }
        let known: Set<CBOR> = [0, 1, 2, 3, 4, 5]
        self.unknownEntries = map.entries.filter { !known.contains($0.key) }
    }

    /// The engagement as a CBOR map, keys in the order 0–5 then unknown entries. Re-encoding a received
    /// engagement need not give its received bytes: use the bytes it arrived in for the SessionTranscript.
    public var cbor: CBOR {
        var map = CBORMap()
        map.append(key: 0, value: .text(version))
        map.append(key: 1, value: [.int(security.cipherSuiteIdentifier), security.eDeviceKeyBytes.cbor])
        if !deviceRetrievalMethods.isEmpty { map.append(key: 2, value: .array(deviceRetrievalMethods.map(\.cbor))) }
        if let serverRetrievalMethods { map.append(key: 3, value: serverRetrievalMethods) }
        if let protocolInfo { map.append(key: 4, value: protocolInfo) }
        if !originInfos.isEmpty { map.append(key: 5, value: .array(originInfos.map(\.cbor))) }
        for e in unknownEntries { map.append(key: e.key, value: e.value) }
        return .map(map)
    }

    /// Encodes this engagement once; keep the result and use its bytes from then on.
    public func encoded() throws(MDocError) -> EncodedCBOR<DeviceEngagement> {
        do {
            return try EncodedCBOR(encoding: self)
        } catch {
            throw .invalidStructure(structure: "DeviceEngagement", reason: "cannot be encoded: \(error)")
        }
    }
}

extension DeviceEngagement: Codable {
    /// Decodes through `init(cbor:)`.
    public init(from decoder: any Decoder) throws {
        try self.init(cbor: decoder.singleValueContainer().decode(CBOR.self))
    }

    /// Encodes `cbor`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(cbor)
    }
}

/// `OriginInfo = {"cat": uint, "type": uint, "details": any}` (§8.2.1.1, 18013-5 2021 edition).
public struct OriginInfo: Sendable, Equatable {
    /// Category of the origin, as a number §8.2.1.1 assigns; not interpreted here.
    public var cat: UInt64
    /// Type of the origin within its category; not interpreted here.
    public var type: UInt64
    /// Type-specific details, kept as received (`null` when absent).
    public var details: CBOR

    /// An OriginInfo entry.
    public init(cat: UInt64, type: UInt64, details: CBOR) {
        self.cat = cat
        self.type = type
        self.details = details
    }

    init(cbor: CBOR) throws(MDocError) {
        guard case .map(let m) = cbor, let cat = m["cat"]?.uint64Value, let type = m["type"]?.uint64Value else {
            throw .invalidStructure(structure: "OriginInfo", reason: "needs cat and type")
        }
        self.cat = cat
        self.type = type
        self.details = m["details"] ?? .null
    }

    var cbor: CBOR { ["cat": .unsigned(cat), "type": .unsigned(type), "details": details] }
}
