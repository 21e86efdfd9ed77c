import Dispatch
import Logging
import Vapor

/// One log line per request once `ServiceLogging.bootstrapJSON()` ran: request id, method, route pattern (never the
/// path: ids and codes travel in paths), status and duration; and the request id in `X-Request-Id` for the client.
struct RequestLogMiddleware: AsyncMiddleware {
    let logger: Logger

    init(service: String) {
        var logger = Logger(label: "tessera.request")
        logger.logLevel = .info
        logger[metadataKey: "service"] = .string(service)
        self.logger = logger
    }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let response = try await next.respond(to: request)
        response.headers.replaceOrAdd(name: "X-Request-Id", value: request.id)
        if ServiceLogging.logsRequests {
            let microseconds = (DispatchTime.now().uptimeNanoseconds - start) / 1_000
            logger.info("request", metadata: [
                "request_id": .string(request.id),
                "method": .string(request.method.rawValue),
                "route": .string(Self.route(request)),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .string(String(format: "%.3f", Double(microseconds) / 1_000)),
            ])
        }
        return response
    }

    /// The matched route's pattern ("/response/:id"), or "unmatched" (so a scan of random paths stays one value).
    static func route(_ request: Request) -> String {
        guard let route = request.route else { return "unmatched" }
        return "/" + route.path.map(\.description).joined(separator: "/")
    }
}
