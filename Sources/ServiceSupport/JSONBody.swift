import Foundation
import TesseraJOSE
import Vapor

/// JSON in and out through TesseraJOSE's strict JSON (size and depth limits, duplicate names rejected).
public enum JSONBody {
    public static func response(_ object: JSONObject, status: HTTPResponseStatus = .ok) -> Response {
        var headers = HTTPHeaders()
        headers.contentType = .json
        headers.add(name: .cacheControl, value: "no-store")
        return Response(status: status, headers: headers, body: .init(data: object.serialized()))
    }

    /// The request body as a JSON object of at most `limit` bytes sent as `application/json`; nil when it is
    /// missing, too large, not JSON, or not an object (the caller answers with its own spec's error).
    public static func object(of request: Request, limit: Int = 64 * 1024) -> JSONObject? {
        guard request.headers.contentType?.type == "application", request.headers.contentType?.subType == "json",
            let buffer = request.body.data, buffer.readableBytes <= limit
        else { return nil }
        return (try? JSONValue.parse(buffer.readableBytesView))?.objectValue
    }

    /// An empty answer with `Cache-Control: no-store` (204 and friends).
    public static func empty(_ status: HTTPResponseStatus) -> Response {
        var headers = HTTPHeaders()
        headers.add(name: .cacheControl, value: "no-store")
        return Response(status: status, headers: headers)
    }
}
