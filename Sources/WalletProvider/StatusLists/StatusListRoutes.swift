import ServiceSupport
import Vapor

/// `GET /status-lists/{id}` (TSL §8.1): the list's Status List Token in the form `Accept` asks for, as the raw
/// token (`application/statuslist+jwt` text or `application/statuslist+cwt` bytes) with `Cache-Control: max-age` =
/// its `ttl`, `Vary: Accept`, and CORS open to any origin (TSL §8.1: browser clients fetch it too).
struct StatusListRoutes: Sendable {
    let box: ServicesBox
    var provider: ProviderServices { get throws(WireError) { try box.get() } }

    func register(on routes: any RoutesBuilder) {
        routes.get("status-lists", ":id") { request async throws -> Response in
            // TSL §8.4: historical resolution is optional and not offered; 501 says so.
            guard request.url.query.map({ !$0.split(separator: "&").contains { $0.hasPrefix("time=") } }) ?? true else {
                throw WireError(.notImplemented, "not_implemented", "historical status list resolution (time) is not served")
            }
            let accept = request.headers[.accept]
            let format = try StatusListFormat.negotiate(accept: accept.isEmpty ? nil : accept.joined(separator: ","))
            let served = try await provider.statusLists.token(listID: request.parameters.get("id") ?? "", format: format)
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .contentType, value: served.format.mediaType)
            headers.replaceOrAdd(name: .cacheControl, value: "max-age=\(served.timeToLive)")
            headers.replaceOrAdd(name: .vary, value: "Accept")
            headers.replaceOrAdd(name: .accessControlAllowOrigin, value: "*")
            return Response(status: .ok, headers: headers, body: .init(data: served.body))
        }
    }
}
