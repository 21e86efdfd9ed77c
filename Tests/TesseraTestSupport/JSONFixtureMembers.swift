import TesseraJOSE

/// A fixture member missing or of the wrong type: fails the test by throwing instead of crashing.
public struct MissingMember: Error, CustomStringConvertible {
    public let path: String
    public init(path: String) { self.path = path }
    public var description: String { "fixture member \(path) missing or of the wrong type" }
}

/// Typed lookups into JSON test fixtures (shared by the JOSE and SD-JWT tests).
extension JSONValue {
    public func member(_ key: String) throws -> JSONValue {
        guard let value = self[key] else { throw MissingMember(path: key) }
        return value
    }

    public func string(_ key: String) throws -> String {
        guard let value = self[key]?.stringValue else { throw MissingMember(path: key) }
        return value
    }

    public func object(_ key: String) throws -> JSONObject {
        guard let value = self[key]?.objectValue else { throw MissingMember(path: key) }
        return value
    }

    public func array(_ key: String) throws -> [JSONValue] {
        guard let value = self[key]?.arrayValue else { throw MissingMember(path: key) }
        return value
    }
}
