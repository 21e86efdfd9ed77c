import Foundation
import TesseraCBOR
import Testing

@testable import TesseraCOSE

@Suite("Header buckets")
struct COSEHeadersTests {
    @Test("protected header: received bytes kept; empty bstr is an empty map; built once, deterministically")
    func protectedHeader() throws {
        let empty = try COSEProtectedHeader(rawBytes: Data())
        #expect(empty.headers.isEmpty && empty.rawBytes.isEmpty)
        let a0 = try COSEProtectedHeader(rawBytes: Data([0xa0]))
        #expect(a0.headers.isEmpty && a0.rawBytes == Data([0xa0]))
        #expect(a0 != empty)
        #expect(COSEProtectedHeader(COSEHeaders()).rawBytes.isEmpty)
        #expect(COSEProtectedHeader.empty.rawBytes.isEmpty)

        // kid set before alg: encoded in deterministic order {1: -7, 4: h'3131'}.
        var headers = COSEHeaders()
        headers.keyID = Data("11".utf8)
        headers.setAlgorithm(.es256)
        let built = COSEProtectedHeader(headers)
        #expect(built.rawBytes == Data([0xa2, 0x01, 0x26, 0x04, 0x42, 0x31, 0x31]))
        #expect(built.headers.labels == [.algorithm, .keyID])

        // Non-shortest but valid received bytes are kept as they are: {1: -7} with a 1-byte argument.
        let odd = Data([0xa1, 0x01, 0x38, 0x06])
        let received = try COSEProtectedHeader(rawBytes: odd)
        #expect(received.rawBytes == odd)
        #expect(try received.headers.algorithm == .es256)

        #expect(coseError { _ = try COSEProtectedHeader(rawBytes: Data([0x80])) } == .protectedHeaderNotAMap)
        if case .malformed? = coseError({ _ = try COSEProtectedHeader(rawBytes: Data([0xa1, 0x01])) }) {} else {
            Issue.record("truncated protected header accepted")
        }
        if case .malformed(.duplicateMapKey)? = coseError({
            _ = try COSEProtectedHeader(rawBytes: Data([0xa2, 0x01, 0x26, 0x01, 0x26]))
        }) {} else {
            Issue.record("duplicate label in the protected bucket accepted")
        }
    }

    @Test("protected {1: alg} read without the general decoder: the same bucket or error for every third byte")
    func algorithmOnlyProtectedHeader() throws {
        for third in UInt8.min...UInt8.max {
            let bytes = Data([0xa1, 0x01, third])
            let general = Result { () throws(COSEError) -> COSEHeaders in
                let item: CBOR
                do throws(CBORError) { item = try CBOR.decode(bytes, options: .strict) } catch { throw .malformed(error) }
                guard case .map(let m) = item else { throw .protectedHeaderNotAMap }
                return try COSEHeaders(map: m)
            }
            let fast = Result { () throws(COSEError) in try COSEProtectedHeader(rawBytes: bytes).headers }
            switch (general, fast) {
            case (.success(let a), .success(let b)): #expect(a == b && a.map.entries == b.map.entries, "a1 01 \(third)")
            case (.failure, .failure): break
            default: Issue.record("a1 01 \(third): \(general) vs \(fast)")
            }
        }
        // A slice of a larger buffer (indices not from 0) reads the same.
        let slice = Data([0xff, 0xa1, 0x01, 0x26]).dropFirst()
        #expect(try COSEProtectedHeader(rawBytes: slice).headers.algorithm == .es256)
    }

    @Test("a bucket of more labels than the linear search handles still rejects a repeated label")
    func largeBuckets() throws {
        let many = (0..<40).map { CBORMap.Entry(key: .int(100 + $0), value: .int($0)) }
        #expect(try COSEHeaders(map: CBORMap(many)).count == 40)
        let repeated = many + [CBORMap.Entry(key: .int(120), value: .int(0))]
        #expect(coseError { _ = try COSEHeaders(map: CBORMap(repeated)) }
            == .invalidHeaderValue(label: 120, reason: "label appears twice in one bucket"))
        // 20 protected labels and one of them again in the unprotected bucket.
        let protected = COSEProtectedHeader(try COSEHeaders(map: CBORMap(Array(many.prefix(20)))))
        let wire = CBOR.array([protected.cbor, [105: .int(1)], .null, .bytes(Data(count: 64))])
        #expect(coseError { _ = try COSESign1(cbor: wire) } == .duplicateHeaderLabel(105))
    }

    @Test("typed access: alg, kid, content type, x5chain; other labels generic")
    func typedAccess() throws {
        let certs = [Data([0x30, 0x01]), Data([0x30, 0x02])]
        var headers = COSEHeaders(algorithm: .es384, contentType: .mediaType("application/cbor"), keyID: Data([1]), x5chain: certs)
        #expect(try headers.algorithm == .es384)
        #expect(headers.contentType == .mediaType("application/cbor"))
        #expect(headers.keyID == Data([1]))
        #expect(headers.x5chain == certs)
        #expect(headers[33] == .array([.bytes(certs[0]), .bytes(certs[1])]))
        headers.x5chain = [certs[0]]
        #expect(headers[33] == .bytes(certs[0]))
        #expect(headers.x5chain == [certs[0]])
        headers.x5chain = []
        #expect(headers[33] == nil)

        try headers.set("value", for: "text-label")
        try headers.set(.int(7), for: -70000)
        #expect(headers["text-label"] == "value")
        #expect(headers[.int(-70000)] == .int(7))
        #expect(headers.labels.contains(.text("text-label")))
        try headers.set(nil, for: "text-label")
        #expect(headers["text-label"] == nil)

        headers.contentType = .coapContentFormat(60)
        #expect(headers[3] == 60)

        let unknownAlg = try COSEHeaders(map: CBORMap([.init(key: 1, value: -999)]))
        #expect(coseError { _ = try unknownAlg.algorithm } == .unsupportedAlgorithm("-999"))
        let textAlg = try COSEHeaders(map: CBORMap([.init(key: 1, value: "ES256")]))
        #expect(coseError { _ = try textAlg.algorithm } == .unsupportedAlgorithm("\"ES256\""))

        let badValues: [(Int, CBOR)] = [(1, .bytes(Data())), (3, .negative(0)), (4, "kid"), (33, .array([])), (33, ["x"])]
        for (label, value) in badValues {
            let map = CBORMap([.init(key: .int(label), value: value)])
            if case .invalidHeaderValue(let l, _)? = coseError({ _ = try COSEHeaders(map: map) }) {
                #expect(l == .int(Int64(label)))
            } else {
                Issue.record("label \(label) accepted \(value.kindName)")
            }
        }
        let dup = CBORMap([.init(key: 4, value: .bytes(Data())), .init(key: 4, value: .bytes(Data()))])
        if case .invalidHeaderValue(.keyID, _)? = coseError({ _ = try COSEHeaders(map: dup) }) {} else {
            Issue.record("duplicate label in one bucket accepted")
        }
    }

    @Test("algorithm identifiers: known ids map both ways, unknown ones are typed errors")
    func algorithms() throws {
        for alg in COSEAlgorithm.allCases {
            #expect(try COSEAlgorithm(identifier: alg.rawValue) == alg)
            #expect(try COSEAlgorithm(cbor: alg.cbor) == alg)
        }
        #expect([COSEAlgorithm.es256, .es384, .es512, .edDSA, .hmac256].map(\.rawValue) == [-7, -35, -36, -8, 5])
        #expect(coseError { _ = try COSEAlgorithm(identifier: -47) } == .unsupportedAlgorithm("-47"))
        #expect(coseError { _ = try COSEAlgorithm(cbor: "HS256") } == .unsupportedAlgorithm("\"HS256\""))
        if case .invalidHeaderValue(.algorithm, _)? = coseError({ _ = try COSEAlgorithm(cbor: .bytes(Data())) }) {} else {
            Issue.record("bstr alg accepted")
        }
    }

    @Test("error messages are single lines")
    func errorMessages() {
        let errors: [COSEError] = [
            .malformed(.trailingBytes(offset: 3)), .notCOSESign1("x"), .wrongTag(found: 998, expected: 18),
            .protectedHeaderNotAMap, .duplicateHeaderLabel(.algorithm), .missingAlgorithm,
            .unsupportedAlgorithm("-999"), .algorithmMismatch(.es512, key: "P-256"), .signatureInvalid, .macInvalid,
            .derSignatureRejected, .invalidKey("x"), .detachedPayloadRequired, .unknownCriticalHeader("foo"),
        ]
        for error in errors {
            #expect(!error.description.isEmpty)
            #expect(!error.description.contains("\n"))
        }
        #expect(COSEError.algorithmMismatch(.es512, key: "P-256").description == "algorithm ES512 cannot be used with a P-256 key")
        #expect(COSEError.duplicateHeaderLabel(.algorithm).description.contains("alg (1)"))
    }
}
