import TesseraJOSE

/// RFC 9901 §7.1 steps 3–5: replaces the digests of the Issuer-signed JWT payload with the values of the matching
/// Disclosures, recursively, and collects every rule broken on the way instead of stopping at the first.
struct DisclosureProcessor {
    /// Claims that an SD-JWT VC must not disclose selectively (VC §3.2.2.2); checked at the top level only.
    static let nonDisclosableVCClaims: Set<String> = ["iss", "nbf", "exp", "cnf", "vct", "vct#integrity", "status"]

    private let disclosures: [Disclosure]
    private let algorithm: SDHashAlgorithm
    private var indexByDigest: [DigestKey: Int] = [:]
    /// Which Disclosures a digest referenced: a digest met twice finds its Disclosure referenced already.
    private var referenced: [Bool]
    /// Digests met that have no Disclosure (decoys and undisclosed claims), for the duplicate rule (step 3.2.3).
    private var seen: Set<String> = []
    private let maxDepth: Int
    private let checkVCClaims: Bool
    private var depthExceeded = false
    private(set) var errors: [SDJWTError] = []

    init(disclosures: [Disclosure], algorithm: SDHashAlgorithm, maxDepth: Int, checkVCClaims: Bool) {
        self.disclosures = disclosures
        self.algorithm = algorithm
        self.referenced = Array(repeating: false, count: disclosures.count)
        self.maxDepth = maxDepth
        self.checkVCClaims = checkVCClaims
        indexByDigest.reserveCapacity(disclosures.count)
        // Last to first, so that of two copies of the same Disclosure (same digest) the first is indexed and the
        // second stays unreferenced (step 5); one dictionary operation each.
        for index in disclosures.indices.reversed() {
            indexByDigest[disclosures[index].digestKey(algorithm)] = index
        }
    }

    /// Processes the payload; `_sd_alg` is left out at the top level (step 3.6).
    mutating func process(payload: JSONObject) -> JSONObject {
        let result = processObject(payload, depth: 0)
        // Past the depth limit processing stopped, so the deeper Disclosures were never reached: not reported again.
        for (index, wasReferenced) in referenced.enumerated() where !wasReferenced && !depthExceeded {
            errors.append(.unreferencedDisclosure(disclosures[index].digest(algorithm)))
        }
        return result
    }

    private mutating func processValue(_ value: JSONValue, depth: Int) -> JSONValue {
        switch value {
        case .object(let object): return .object(processObject(object, depth: depth + 1))
        case .array(let array): return .array(processArray(array, depth: depth + 1))
        default: return value
        }
    }

    /// Neither an object nor an array: nothing in it can be a digest.
    private static func isPlain(_ value: JSONValue) -> Bool {
        switch value {
        case .object, .array: return false
        default: return true
        }
    }

    private mutating func tooDeep(_ depth: Int) -> Bool {
        guard depth > maxDepth else { return false }
        if !depthExceeded {
            depthExceeded = true
            errors.append(.nestingTooDeep(limit: maxDepth))
        }
        return true
    }

    private mutating func processObject(_ object: JSONObject, depth: Int) -> JSONObject {
        if tooDeep(depth) { return JSONObject() }
        let sd = object["_sd"]
        // An object with no digests and only plain values (a JWK, an address) has nothing to replace: kept as is.
        if sd == nil, depth > 0, object.allSatisfy({ Self.isPlain($0.value) }) { return object }
        var result = JSONObject()
        // Room for every plain member and every digest that may be disclosed, so the object grows once.
        result.reserveCapacity(object.count + (sd?.arrayValue?.count ?? 0))
        // Step 3.6: `_sd_alg` is dropped at the top level while copying (removing it afterwards re-indexes a large
        // object).
        for (key, value) in object where key != "_sd" && !(depth == 0 && key == "_sd_alg") {
            // The names of a parsed object are unique: this always appends.
            _ = result.appendIfAbsent(key) { processValue(value, depth: depth) }
        }
        guard let sd else { return result }
        guard let digests = sd.arrayValue else {
            errors.append(.sdNotArrayOfStrings)
            return result
        }
        for entry in digests {
            guard let digest = entry.stringValue else {
                errors.append(.sdNotArrayOfStrings)
                continue
            }
            // Step 3.3.1: a digest without a Disclosure (decoy or not disclosed) is ignored.
            guard let index = firstReference(digest) else { continue }
            guard let name = disclosures[index].claimName else {
                errors.append(.arrayElementDisclosureInObject(digest))
                continue
            }
            if name == "_sd" || name == "..." {
                errors.append(.reservedClaimName(name))
                continue
            }
            if depth == 0, name == "_sd_alg" { continue }  // step 3.6 removes it wherever it came from
            // A colliding claim is neither checked further nor processed: its own digests stay unreferenced.
            let claimValue = disclosures[index].claimValue
            let appended = result.appendIfAbsent(name) {
                if checkVCClaims, depth == 0, Self.nonDisclosableVCClaims.contains(name) {
                    errors.append(.nonDisclosableClaim(name))
                }
                return processValue(claimValue, depth: depth)
            }
            if !appended { errors.append(.claimNameCollision(name)) }
        }
        return result
    }

    /// The Disclosure `digest` references, when this is the first time the digest is met; nil for a digest with
    /// no Disclosure. A digest met again is reported (step 3.2.3, "more than once") and also answers nil.
    private mutating func firstReference(_ digest: String) -> Int? {
        guard let key = DigestKey(text: digest), let index = indexByDigest[key] else {
            if !seen.insert(digest).inserted { errors.append(.duplicateDigest(digest)) }
            return nil
        }
        guard !referenced[index] else {
            errors.append(.duplicateDigest(digest))
            return nil
        }
        referenced[index] = true
        return index
    }

    private mutating func processArray(_ array: [JSONValue], depth: Int) -> [JSONValue] {
        if tooDeep(depth) { return [] }
        var result: [JSONValue] = []
        result.reserveCapacity(array.count)
        for element in array {
            guard case .object(let object) = element, let marker = object["..."] else {
                result.append(processValue(element, depth: depth))
                continue
            }
            guard object.count == 1, let digest = marker.stringValue else {
                errors.append(.malformedArrayElementDigest)
                continue
            }
            // Step 3.4: elements whose digest has no Disclosure are removed.
            guard let index = firstReference(digest) else { continue }
            guard disclosures[index].claimName == nil else {
                errors.append(.objectPropertyDisclosureInArray(digest))
                continue
            }
            let value = disclosures[index].claimValue
            // §4.2.4.2: an element `{"...": x}` reads as an array element digest, so an issuer cannot disclose one
            // (Tessera's refuses to). Put in place, it would leave a digest-shaped element in the processed claims.
            if case .object(let disclosed) = value, disclosed.contains("...") {
                errors.append(.reservedClaimName("..."))
                continue
            }
            result.append(processValue(value, depth: depth))
        }
        return result
    }
}
