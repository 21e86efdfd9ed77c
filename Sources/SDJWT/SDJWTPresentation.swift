import Foundation
import TesseraCore
import TesseraJOSE

/// The holder's side (§7.2, §4.3): choosing what to disclose, and Key Binding.
///
/// A path selects a claim; the presentation carries the minimal closure for it: the Disclosure of the claim itself
/// (if it is selectively disclosable), the Disclosures of every ancestor on the way down (without them the verifier
/// could not reach the claim's digest), and every Disclosure inside the selected value (disclosing an object or an
/// array discloses all of it, as OpenID4VP §7 reads a path that ends at an object). With `includingNested: false`
/// the selected claim's own nested selectively disclosable claims stay undisclosed (its value arrives with digests
/// only), for holders that pick claims one level at a time.
public enum SDJWTPresentation {
    /// The Disclosures needed to reveal the claims at `paths`, in the order they appear in `sdJWT`.
    /// Throws `claimNotFound` for a path that selects nothing.
    public static func disclosures(
        of sdJWT: SDJWT, disclosing paths: [ClaimsPathPointer], includingNested: Bool = true
    ) throws(SDJWTError) -> [Disclosure] {
        let algorithm = try sdJWT.hashAlgorithm()
        var selector = Selector(disclosures: sdJWT.disclosures, algorithm: algorithm, includingNested: includingNested)
        let root = JSONValue.object(sdJWT.payload)
        for path in paths {
            guard selector.select(root, path.components[...], depth: 0) else { throw .claimNotFound(path) }
        }
        return sdJWT.disclosures.enumerated().filter { selector.selected.contains($0.offset) }.map(\.element)
    }

    /// A presentation without Key Binding: `<Issuer-signed JWT>~<selected Disclosures>~`.
    public static func present(
        _ sdJWT: SDJWT, disclosing paths: [ClaimsPathPointer], includingNested: Bool = true
    ) throws(SDJWTError) -> String {
        try presentation(sdJWT, disclosing: paths, includingNested: includingNested).compact
    }

    /// An SD-JWT+KB (§4.3): the selected Disclosures and a KB-JWT (`typ: kb+jwt`; `iat` from the clock, `aud`,
    /// `nonce`, `sd_hash` over the presented `<JWT>~<D…>~` text exactly) signed with `holderKey`, which must be the
    /// key in the SD-JWT's `cnf`.
    public static func present(
        _ sdJWT: SDJWT, disclosing paths: [ClaimsPathPointer], includingNested: Bool = true, holderKey: JWSSigningKey,
        audience: String, nonce: String, clock: any TesseraClock
    ) throws(SDJWTError) -> String {
        let presented = try presentation(sdJWT, disclosing: paths, includingNested: includingNested)
        return try keyBound(presented, holderKey: holderKey, audience: audience, nonce: nonce, clock: clock).compact
    }

    /// The presentation as an `SDJWT` (compact serialization, no KB-JWT).
    public static func presentation(
        _ sdJWT: SDJWT, disclosing paths: [ClaimsPathPointer], includingNested: Bool = true
    ) throws(SDJWTError) -> SDJWT {
        try SDJWT(
            issuerSignedJWT: sdJWT.issuerSignedJWT,
            disclosures: disclosures(of: sdJWT, disclosing: paths, includingNested: includingNested))
    }

    /// `presented` with a KB-JWT over its `sdHashInput` appended (§4.3).
    public static func keyBound(
        _ presented: SDJWT, holderKey: JWSSigningKey, audience: String, nonce: String, clock: any TesseraClock
    ) throws(SDJWTError) -> SDJWT {
        guard let cnfKey = presented.payload["cnf"]?["jwk"]?.objectValue else {
            throw .invalidConfirmationKey("the SD-JWT has no cnf.jwk")
        }
        let confirmation: JWK
        do {
            confirmation = try JWK(json: cnfKey)
        } catch {
            throw .invalidConfirmationKey("cnf.jwk is not a valid JWK")
        }
        guard confirmation.thumbprint() == holderKey.publicJWK.thumbprint() else { throw .holderKeyMismatch }
        let algorithm = try presented.hashAlgorithm()
        let claims: JSONObject = [
            "iat": .integer(Int64(clock.now().timeIntervalSince1970.rounded(.down))),
            "aud": .string(audience),
            "nonce": .string(nonce),
            "sd_hash": .string(algorithm.base64URLDigest(of: presented.sdHashInputText)),
        ]
        do {
            let kbJWT = try CompactJWS.sign(header: ["typ": "kb+jwt"], claims: claims, key: holderKey)
            return presented.withKeyBinding(kbJWT)
        } catch {
            throw .signingFailed(error)
        }
    }

    /// Walks the Issuer-signed payload with all of the holder's Disclosures.
    private struct Selector {
        let disclosures: [Disclosure]
        let includingNested: Bool
        var indexByDigest: [String: Int] = [:]
        var selected: Set<Int> = []
        /// Guards against a Disclosure that (through a forged chain of digests) would contain itself.
        var visiting: Set<Int> = []
        /// Nesting (objects, arrays, Disclosure values) beyond this is not followed, as in verification.
        let maxDepth = SDJWTLimits.default.maxDepth

        init(disclosures: [Disclosure], algorithm: SDHashAlgorithm, includingNested: Bool) {
            self.disclosures = disclosures
            self.includingNested = includingNested
            for (index, disclosure) in disclosures.enumerated() {
                let digest = disclosure.digest(algorithm)
                if indexByDigest[digest] == nil { indexByDigest[digest] = index }
            }
        }

        /// The elements of an array as the holder sees them: plain elements, and disclosed ones with their
        /// Disclosure index; digests without a Disclosure (decoys) are left out.
        func visibleElements(_ array: [JSONValue]) -> [(value: JSONValue, disclosure: Int?)] {
            var result: [(value: JSONValue, disclosure: Int?)] = []
            for element in array {
                if case .object(let object) = element, object.count == 1, let digest = object["..."]?.stringValue {
                    if let index = indexByDigest[digest] { result.append((disclosures[index].claimValue, index)) }
                } else {
                    result.append((element, nil))
                }
            }
            return result
        }

        mutating func select(_ value: JSONValue, _ path: ArraySlice<ClaimsPathPointer.Component>, depth: Int) -> Bool {
            guard depth <= maxDepth else { return false }
            guard let component = path.first else {
                if includingNested { selectAll(value, depth: depth) }
                return true
            }
            let rest = path.dropFirst()
            switch component {
            case .key(let key):
                guard case .object(let object) = value, key != "_sd" else { return false }
                if let plain = object[key] { return select(plain, rest, depth: depth + 1) }
                for entry in object["_sd"]?.arrayValue ?? [] {
                    guard let digest = entry.stringValue, let index = indexByDigest[digest],
                        disclosures[index].claimName == key
                    else { continue }
                    return enter(index, rest, depth: depth + 1)
                }
                return false
            case .index(let position):
                guard case .array(let array) = value else { return false }
                let elements = visibleElements(array)
                guard position < elements.count else { return false }
                let element = elements[position]
                if let index = element.disclosure { return enter(index, rest, depth: depth + 1) }
                return select(element.value, rest, depth: depth + 1)
            case .allElements:
                guard case .array(let array) = value else { return false }
                let elements = visibleElements(array)
                var found = elements.isEmpty
                for element in elements {
                    let matched: Bool
                    if let index = element.disclosure {
                        matched = enter(index, rest, depth: depth + 1)
                    } else {
                        matched = select(element.value, rest, depth: depth + 1)
                    }
                    found = found || matched
                }
                return found
            }
        }

        /// Selects Disclosure `index` if the rest of the path is found inside its value.
        private mutating func enter(_ index: Int, _ rest: ArraySlice<ClaimsPathPointer.Component>, depth: Int) -> Bool {
            guard visiting.insert(index).inserted else { return false }
            defer { visiting.remove(index) }
            guard select(disclosures[index].claimValue, rest, depth: depth) else { return false }
            selected.insert(index)
            return true
        }

        /// Every Disclosure reachable inside `value`.
        mutating func selectAll(_ value: JSONValue, depth: Int) {
            guard depth <= maxDepth else { return }
            switch value {
            case .object(let object):
                for (key, member) in object where key != "_sd" { selectAll(member, depth: depth + 1) }
                for entry in object["_sd"]?.arrayValue ?? [] {
                    guard let digest = entry.stringValue, let index = indexByDigest[digest] else { continue }
                    include(index, depth: depth + 1)
                }
            case .array(let array):
                for element in array {
                    if case .object(let object) = element, object.count == 1, let digest = object["..."]?.stringValue {
                        if let index = indexByDigest[digest] { include(index, depth: depth + 1) }
                    } else {
                        selectAll(element, depth: depth + 1)
                    }
                }
            default:
                break
            }
        }

        private mutating func include(_ index: Int, depth: Int) {
            guard selected.insert(index).inserted, visiting.insert(index).inserted else { return }
            defer { visiting.remove(index) }
            selectAll(disclosures[index].claimValue, depth: depth)
        }
    }
}
