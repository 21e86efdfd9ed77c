import Foundation
import TesseraCore
import TesseraJOSE

/// Issues SD-JWTs (§4, §5) and SD-JWT VCs. Which claims are selectively disclosable is given by claims path
/// pointers into the claims as the caller wrote them: `["address"]` makes the `address` member disclosable,
/// `["address", "street_address"]` a member inside it (both together: recursive disclosure, §4.2.6),
/// `["nationalities", null]` every element of the array.
///
/// Salts are 128 bits (or more) from the injected random source (§9.3); the digests of each `_sd` array are sorted
/// (which hides the claim order, §4.2.4.1) after adding the configured number of decoy digests (§4.2.5).
public struct SDJWTIssuer: Sendable {
    public let signingKey: JWSSigningKey
    public let hashAlgorithm: SDHashAlgorithm
    public let clock: any TesseraClock
    public let random: any RandomSource
    /// Salt length in bytes, at least 16 (§9.3).
    public let saltBytes: Int
    /// How many decoy digests each `_sd` array gets, drawn uniformly from this range (§4.2.5).
    public let decoyDigests: ClosedRange<Int>

    public init(
        signingKey: JWSSigningKey, hashAlgorithm: SDHashAlgorithm = .sha256, clock: any TesseraClock,
        random: any RandomSource, saltBytes: Int = 16, decoyDigests: ClosedRange<Int> = 0...0
    ) throws(SDJWTError) {
        guard saltBytes >= 16 else { throw .saltTooShort(bytes: saltBytes) }
        self.signingKey = signingKey
        self.hashAlgorithm = hashAlgorithm
        self.clock = clock
        self.random = random
        self.saltBytes = saltBytes
        self.decoyDigests = max(0, decoyDigests.lowerBound)...max(0, decoyDigests.upperBound)
    }

    /// Issues an SD-JWT over `claims` (used as given: add `iss`, `iat` … yourself, or use `issueVC`).
    ///
    /// - Parameters:
    ///   - header: further protected header members (`typ`, `kid`, `x5c` …); `alg` is set from the key.
    ///   - holderKey: when given, its public JWK becomes `cnf.jwk` (RFC 7800 §3.2) for Key Binding.
    public func issue(
        claims: JSONObject, disclosable: [ClaimsPathPointer], header: JSONObject = JSONObject(), holderKey: JWK? = nil
    ) throws(SDJWTError) -> SDJWT {
        var encoder = Encoder(issuer: self, disclosable: disclosable)
        var payload = try encoder.encodeObject(claims, path: [])
        for (pointer, used) in zip(disclosable, encoder.used) where !used { throw .disclosablePathNotFound(pointer) }
        if let holderKey {
            payload["cnf"] = .object(["jwk": .object(holderKey.publicJWK.jsonObject)])
        }
        payload["_sd_alg"] = .string(hashAlgorithm.rawValue)
        let jwt: CompactJWS
        do {
            jwt = try CompactJWS.sign(header: header, claims: payload, key: signingKey)
        } catch {
            throw .signingFailed(error)
        }
        return try SDJWT(issuerSignedJWT: jwt, disclosures: encoder.disclosures)
    }

    /// Issues an SD-JWT VC (draft-ietf-oauth-sd-jwt-vc §3): `typ: dc+sd-jwt`, then `iss` (if given), `iat` (now),
    /// `exp` (now + validity, if given), `vct`, `cnf` and `status` (if given) in clear, then the user claims.
    ///
    /// - Parameters:
    ///   - x5c: the issuer certificate chain, leaf first, DER (goes into the `x5c` header, VC §3.5).
    ///   - status: the `status` claim, e.g. `StatusListReference(index:uri:).claim`.
    public func issueVC(
        vct: String, claims: JSONObject, disclosable: [ClaimsPathPointer], holderKey: JWK?,
        issuer: String? = nil, validity: TimeInterval? = nil, status: JSONValue? = nil,
        x5c: [Data] = [], kid: String? = nil
    ) throws(SDJWTError) -> SDJWT {
        for pointer in disclosable {
            if case .key(let name) = pointer.components[0], DisclosureProcessor.nonDisclosableVCClaims.contains(name) {
                throw .nonDisclosableClaim(name)
            }
        }
        let now = clock.now().timeIntervalSince1970.rounded(.down)
        var payload = JSONObject()
        if let issuer { payload["iss"] = .string(issuer) }
        payload["iat"] = .integer(Int64(now))
        if let validity { payload["exp"] = .integer(Int64(now + validity.rounded(.down))) }
        payload["vct"] = .string(vct)
        if let status { payload["status"] = status }
        for (key, value) in claims where !payload.contains(key) {
            payload[key] = value
        }
        var header: JSONObject = ["typ": "dc+sd-jwt"]
        if let kid { header["kid"] = .string(kid) }
        if !x5c.isEmpty { header["x5c"] = .array(x5c.map { .string($0.base64EncodedString()) }) }
        return try issue(claims: payload, disclosable: disclosable, header: header, holderKey: holderKey)
    }

    /// Walks the claims depth first, turning every member / element selected by a disclosable pointer into a
    /// Disclosure after its own value has been encoded (so nested disclosable claims become recursive Disclosures).
    private struct Encoder {
        let issuer: SDJWTIssuer
        let disclosable: [ClaimsPathPointer]
        var used: [Bool]
        var disclosures: [Disclosure] = []

        init(issuer: SDJWTIssuer, disclosable: [ClaimsPathPointer]) {
            self.issuer = issuer
            self.disclosable = disclosable
            self.used = Array(repeating: false, count: disclosable.count)
        }

        mutating func isDisclosable(_ path: [ClaimsPathPointer.Component]) -> Bool {
            var result = false
            for (index, pointer) in disclosable.enumerated() where pointer.matches(path) {
                used[index] = true
                result = true
            }
            return result
        }

        mutating func encode(_ value: JSONValue, path: [ClaimsPathPointer.Component]) throws(SDJWTError) -> JSONValue {
            switch value {
            case .object(let object): return .object(try encodeObject(object, path: path))
            case .array(let array): return .array(try encodeArray(array, path: path))
            default: return value
            }
        }

        mutating func encodeObject(_ object: JSONObject, path: [ClaimsPathPointer.Component]) throws(SDJWTError) -> JSONObject {
            var result = JSONObject()
            var digests: [String] = []
            for (key, value) in object {
                // `_sd` would collide with the digests (§4.2.4.1).
                guard key != "_sd" else { throw .reservedClaimName(key) }
                let childPath = path + [.key(key)]
                let encoded = try encode(value, path: childPath)
                if isDisclosable(childPath) {
                    let disclosure = try Disclosure.make(
                        claimName: key, claimValue: encoded, random: issuer.random, saltBytes: issuer.saltBytes)
                    disclosures.append(disclosure)
                    digests.append(disclosure.digest(issuer.hashAlgorithm))
                } else {
                    result[key] = encoded
                }
            }
            if !digests.isEmpty || issuer.decoyDigests.upperBound > 0 {
                digests += try decoys()
            }
            if !digests.isEmpty {
                digests.sort()
                result["_sd"] = .array(digests.map(JSONValue.string))
            }
            return result
        }

        mutating func encodeArray(_ array: [JSONValue], path: [ClaimsPathPointer.Component]) throws(SDJWTError) -> [JSONValue] {
            var result: [JSONValue] = []
            result.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                // `{"...": x}` would be read as an array element digest (§4.2.4.2).
                if case .object(let object) = element, object.count == 1, object.contains("...") {
                    throw .reservedClaimName("...")
                }
                let childPath = path + [.index(index)]
                let encoded = try encode(element, path: childPath)
                if isDisclosable(childPath) {
                    let disclosure = try Disclosure.make(
                        claimName: nil, claimValue: encoded, random: issuer.random, saltBytes: issuer.saltBytes)
                    disclosures.append(disclosure)
                    result.append(.object(["...": .string(disclosure.digest(issuer.hashAlgorithm))]))
                } else {
                    result.append(encoded)
                }
            }
            return result
        }

        /// Digests of random salts: indistinguishable from real ones (§4.2.5).
        func decoys() throws(SDJWTError) -> [String] {
            let range = issuer.decoyDigests
            var count = range.lowerBound
            if range.upperBound > range.lowerBound {
                var generator = issuer.random.generator
                count = Int.random(in: range, using: &generator)
            }
            var digests: [String] = []
            for _ in 0..<count {
                let salt = try Salt.make(random: issuer.random, bytes: issuer.saltBytes)
                digests.append(issuer.hashAlgorithm.base64URLDigest(of: salt))
            }
            return digests
        }
    }
}
