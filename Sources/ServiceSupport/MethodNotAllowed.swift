import Vapor

/// `405 Method Not Allowed` with an `Allow` header (RFC 9110 §15.5.6) for a path the service serves asked with a
/// method it does not serve, instead of the router's 404. Call once, after every route is registered.
public enum MethodNotAllowed {
    static let methods: [HTTPMethod] = [.GET, .POST, .PUT, .PATCH, .DELETE]

    public static func register(on app: Application) {
        // Paths keyed with every parameter name erased: `request/:id` and `request/:tid` are one route to the router.
        var paths: [String: (path: [PathComponent], methods: [HTTPMethod])] = [:]
        for route in app.routes.all {
            let key = route.path.map { component -> String in
                if case .parameter = component { return ":" }
                return component.description
            }.joined(separator: "/")
            paths[key, default: (route.path, [])].methods.append(route.method)
        }
        for (path, served) in paths.values.sorted(by: { $0.path.string < $1.path.string }) {
            // The responder answers HEAD with the GET route.
            var allowed = methods.filter { served.contains($0) } + served.filter { !methods.contains($0) }
            if served.contains(.GET), !served.contains(.HEAD) { allowed.append(.HEAD) }
            let allow = allowed.map(\.rawValue)
            let answer = WireError(.methodNotAllowed, "invalid_request", "method not allowed; this resource answers \(allow.joined(separator: ", "))")
            for method in methods where !served.contains(method) {
                app.on(method, path) { _ -> Response in
                    let response = answer.response
                    response.headers.replaceOrAdd(name: .allow, value: allow.joined(separator: ", "))
                    return response
                }
            }
        }
    }
}
