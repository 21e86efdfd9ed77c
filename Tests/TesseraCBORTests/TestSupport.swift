import Foundation
import TesseraCBOR
@_exported import TesseraTestSupport

enum Fixtures {
    static func json(_ name: String) throws -> [String: Any] {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures") else {
            throw FixtureError.missing(name)
        }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url), options: [.fragmentsAllowed])
        guard let dict = object as? [String: Any] else { throw FixtureError.missing(name) }
        return dict
    }

    enum FixtureError: Error { case missing(String) }
}

/// Decodes hex as a test input, failing the test with the decoder's error.
func cbor(_ hex: String, _ options: CBORDecodingOptions = .strict) throws -> CBOR {
    try CBOR.decode(Hex.decode(hex), options: options)
}

/// The error `body` throws, or nil.
func caught(_ body: () throws -> Void) -> CBORError? {
    do {
        try body()
        return nil
    } catch let e as CBORError {
        return e
    } catch {
        return nil
    }
}
