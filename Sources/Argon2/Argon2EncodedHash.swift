/// An Argon2 hash in the PHC string format, `$argon2id$v=19$m=65536,t=3,p=4$<salt>$<hash>` (salt and hash in
/// unpadded standard base64), as written by the reference implementation and argon2-cffi.
///
/// Parsing is strict and bounded by `Argon2Limits`; a parsed value always satisfies RFC 9106 §3.1.
/// Not Equatable on purpose: `hash` is compared only in constant time, by `Argon2.verify`.
public struct Argon2EncodedHash: Sendable {
    /// The parameters; `tagLength` is the length of `hash`.
    public let parameters: Argon2Parameters
    public let salt: [UInt8]
    public let hash: [UInt8]

    /// Checks the parameters (RFC 9106 §3.1), that `hash.count` is `parameters.tagLength`, and the salt length.
    public init(parameters: Argon2Parameters, salt: [UInt8], hash: [UInt8]) throws(Argon2Error) {
        try parameters.validate()
        guard salt.count >= Argon2.minimumSaltLength else { throw .saltTooShort(length: salt.count) }
        guard hash.count == Int(parameters.tagLength) else {
            throw .tagLengthOutOfRange(UInt32(clamping: hash.count))
        }
        self.parameters = parameters
        self.salt = salt
        self.hash = hash
    }

    /// The PHC string. The version is always written (`v=19`, or `v=16` for 0x10).
    public var string: String {
        "$\(parameters.variant.identifier)$v=\(parameters.version)"
            + "$m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.parallelism)"
            + "$\(PHCBase64.encode(salt))$\(PHCBase64.encode(hash))"
    }

    /// Parses `encoded`, refusing parameters beyond `limits` before any memory is allocated for them.
    /// A string without the `v=` field is version 0x10, as in the reference implementation.
    public init(parsing encoded: String, limits: Argon2Limits = .default) throws(Argon2Error) {
        let bytes = Array(encoded.utf8)
        // The longest valid text: identifier, version and three 10-digit numbers, plus salt and hash.
        // (Limits are clamped to 0...2^32 - 1 bytes, the RFC 9106 maximum, so the sum cannot overflow.)
        let maxLength =
            64 + PHCBase64.encodedLength(min(max(limits.maxSaltLength, 0), Int(UInt32.max)))
            + PHCBase64.encodedLength(min(max(limits.maxTagLength, 0), Int(UInt32.max)))
        guard bytes.count <= maxLength else {
            throw .malformedEncodedHash(.tooLong(length: bytes.count, limit: maxLength))
        }
        let fields = bytes.split(separator: UInt8(ascii: "$"), omittingEmptySubsequences: false)
        guard fields.count == 5 || fields.count == 6, fields[0].isEmpty else {
            throw .malformedEncodedHash(.fieldCount)
        }
        guard let variant = Argon2Variant.allCases.first(where: { Array($0.identifier.utf8) == Array(fields[1]) })
        else { throw .malformedEncodedHash(.unknownVariant) }

        var next = 2
        var version = Argon2Parameters.version10
        if fields.count == 6 {
            guard let v = Self.keyedDecimal("v", fields[2]) else { throw .malformedEncodedHash(.versionField) }
            version = v
            next = 3
        }
        let costs = fields[next].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard costs.count == 3, let m = Self.keyedDecimal("m", costs[0]), let t = Self.keyedDecimal("t", costs[1]),
            let p = Self.keyedDecimal("p", costs[2])
        else { throw .malformedEncodedHash(.parameterField) }
        guard let salt = PHCBase64.decode(fields[next + 1]) else { throw .malformedEncodedHash(.saltEncoding) }
        guard let hash = PHCBase64.decode(fields[next + 2]) else { throw .malformedEncodedHash(.hashEncoding) }

        guard m <= limits.maxMemoryKiB else {
            throw .memoryLimitExceeded(memoryKiB: m, limitKiB: UInt64(limits.maxMemoryKiB))
        }
        guard t <= limits.maxIterations else {
            throw .iterationsLimitExceeded(iterations: t, limit: limits.maxIterations)
        }
        guard p <= limits.maxParallelism else {
            throw .parallelismLimitExceeded(parallelism: p, limit: limits.maxParallelism)
        }
        guard salt.count <= limits.maxSaltLength else {
            throw .saltLengthLimitExceeded(length: salt.count, limit: limits.maxSaltLength)
        }
        guard hash.count <= limits.maxTagLength else {
            throw .tagLengthLimitExceeded(length: hash.count, limit: limits.maxTagLength)
        }
        let parameters = Argon2Parameters(
            variant: variant, version: version, memoryKiB: m, iterations: t, parallelism: p,
            tagLength: UInt32(hash.count))
        try self.init(parameters: parameters, salt: salt, hash: hash)
    }

    /// `<key>=<decimal>`: digits only, no sign or leading zero, at most UInt32.max.
    private static func keyedDecimal(_ key: Unicode.Scalar, _ field: ArraySlice<UInt8>) -> UInt32? {
        guard field.count >= 3, field.first == UInt8(ascii: key), field.dropFirst().first == UInt8(ascii: "=")
        else { return nil }
        let digits = field.dropFirst(2)
        guard digits.count <= 10, digits.first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        var value: UInt64 = 0
        for d in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(d) else { return nil }
            value = value * 10 + UInt64(d - UInt8(ascii: "0"))
        }
        return UInt32(exactly: value)
    }
}
