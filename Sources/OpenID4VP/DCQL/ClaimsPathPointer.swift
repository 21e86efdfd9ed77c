import SDJWT
import TesseraCBOR
import TesseraJOSE

/// DCQL use of the claims path pointer (§7), whose type SDJWT defines (it also drives selective disclosure).
extension ClaimsPathPointer {
    /// Reads the JSON array form in a DCQL query (§6.3, §7), within `maxLength` components.
    public init(dcqlJSON json: JSONValue, maxLength: Int = DCQLLimits.default.maxPathLength) throws(OpenID4VPError) {
        guard let array = json.arrayValue else { throw .invalidDCQLQuery("claims path pointer is not an array") }
        guard array.count <= maxLength else { throw .invalidDCQLQuery("claims path pointer longer than \(maxLength)") }
        do {
            try self.init(json: json)
        } catch .invalidClaimsPath(let reason) {
            throw .invalidDCQLQuery("invalid claims path pointer (\(reason))")
        } catch {
            throw .invalidDCQLQuery("invalid claims path pointer (\(error))")
        }
    }

    /// `[namespace, element]` when this is a valid mdoc pointer (§7.2: exactly two strings).
    public var mdocElement: (namespace: String, element: String)? {
        guard components.count == 2, case .key(let namespace) = components[0], case .key(let element) = components[1]
        else { return nil }
        return (namespace, element)
    }

    /// Whether the pointer has no `null` component, i.e. names at most one claim.
    public var isConcrete: Bool { !components.contains(.allElements) }

    /// One claim selected by processing: where it is (object keys and array indices only) and its value.
    public struct Selection: Sendable, Hashable {
        /// The concrete location: object keys and array indices only, no `null` component.
        public let path: ClaimsPathPointer
        /// The selected claim value.
        public let value: JSONValue
    }

    /// Processes the pointer against a JSON credential (§7.1.1), keeping where each selected claim is. Returns nil
    /// when processing "aborts with an error": a key applied to a non-object, an index or `null` applied to a
    /// non-array, or an empty final selection — the claim does not exist.
    public func selections(in root: JSONObject) -> [Selection]? {
        var selected: [(path: [Component], value: JSONValue)] = [([], .object(root))]
        for component in components {
            var next: [(path: [Component], value: JSONValue)] = []
            switch component {
            case .key(let key):
                for (path, value) in selected {
                    guard case .object(let object) = value else { return nil }
                    if let child = object[key] { next.append((path + [.key(key)], child)) }
                }
            case .allElements:
                for (path, value) in selected {
                    guard case .array(let array) = value else { return nil }
                    for (offset, element) in array.enumerated() { next.append((path + [.index(offset)], element)) }
                }
            case .index(let index):
                for (path, value) in selected {
                    guard case .array(let array) = value else { return nil }
                    if index < array.count { next.append((path + [.index(index)], array[index])) }
                }
            }
            selected = next
        }
        guard !selected.isEmpty else { return nil }
        return selected.compactMap { entry in
            (try? ClaimsPathPointer(entry.path)).map { Selection(path: $0, value: entry.value) }
        }
    }

    /// Processes the pointer against an mdoc (§7.2.1): the element value, or nil when the pointer is not two
    /// strings or the namespace or element is absent.
    public func mdocValue(in nameSpaces: [String: [String: CBOR]]) -> CBOR? {
        guard let (namespace, element) = mdocElement else { return nil }
        return nameSpaces[namespace]?[element]
    }
}
