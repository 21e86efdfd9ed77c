import Foundation
import Vapor

/// Serves the web root (the verifier page, its script and style) through Vapor's `FileMiddleware`, but asks the
/// file system only about paths that name one of its files. A bare `FileMiddleware` looks up every request's path
/// on disk (a thread-pool hop) before routing, so each wallet response paid for a file lookup that could never
/// succeed. The file list is read once at start: the web root is part of the deployment, so a file added later is
/// served after a restart.
struct WebRootMiddleware: AsyncMiddleware {
    private let files: FileMiddleware
    /// Request paths that name a file: "/" (the default file) and "/" + each file's path under the root.
    let paths: Set<String>

    /// The most files a web root may hold (a guard against pointing it at a large tree).
    static let maximumFiles = 10_000

    /// - Parameter root: the web root directory, ending with "/", holding `defaultFile`.
    init(root: String, defaultFile: String) {
        files = FileMiddleware(publicDirectory: root, defaultFile: defaultFile)
        paths = Self.filePaths(under: root)
    }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard request.method == .GET || request.method == .HEAD, paths.contains(request.url.path) else {
            return try await next.respond(to: request)
        }
        return try await files.respond(to: request, chainingTo: next)
    }

    static func filePaths(under root: String) -> Set<String> {
        var paths: Set<String> = ["/"]
        let rootURL = URL(fileURLWithPath: root, isDirectory: true).standardizedFileURL
        guard let enumerator = FileManager.default.enumerator(
            at: rootURL, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return paths }
        let prefix = rootURL.path.hasSuffix("/") ? rootURL.path : rootURL.path + "/"
        for case let url as URL in enumerator {
            guard paths.count <= maximumFiles else { break }
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(prefix) else { continue }
            paths.insert("/" + path.dropFirst(prefix.count))
        }
        return paths
    }
}
