/// CRC-16/XMODEM (polynomial 0x1021, initial value 0, no reflection): the checksum nkeys append, little-endian,
/// to the prefix and key bytes before base32 encoding.
enum CRC16 {
    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x1021 : crc << 1 }
        return crc
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes { crc = crc << 8 ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)] }
        return crc
    }
}
