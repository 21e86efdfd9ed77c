import Foundation

/// The file `name` (with its extension) in the `Fixtures` folder that a test target copies into its bundle: what
/// each test target's `Fixtures` calls with its own `Bundle.module`.
public func fixtureURL(_ name: String, in bundle: Bundle) throws -> URL {
    let base = (name as NSString).deletingPathExtension
    let ext = (name as NSString).pathExtension
    guard let url = bundle.url(forResource: base, withExtension: ext, subdirectory: "Fixtures") else {
        throw FixtureError.missing(name)
    }
    return url
}
