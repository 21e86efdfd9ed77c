import Foundation
import Synchronization
import TesseraHTTP

/// A load balancer in front of the instances of one service, on the client side: a request addressed to `front`
/// (the one base URL the clients know) goes to the next instance in turn, round robin, with its path and query
/// kept; any other request passes through unchanged. Nothing listens at `front` itself, so a request that bypassed
/// the balancer would fail. `remove` takes an instance out of the rotation, as a health check does once it stops
/// answering. Transport failures are counted per instance, so a test can tell that only the killed one failed.
///
/// Give it a transport that stops connecting soon (`connectTimeout` of a second or two): a killed instance refuses
/// connections at once, but AsyncHTTPClient tries a refused connection again until its connect timeout, and the
/// requests queued for the dead instance wait that long.
public final class LoadBalancer: HTTPClient {
    /// A front nothing listens at (the discard port on loopback, which an OpenID4VP wallet accepts over plain HTTP).
    public static let nowhere = "http://127.0.0.1:9"

    public let front: String
    private let transport: any HTTPClient
    private let state: Mutex<State>

    private struct State {
        var rotation: [String]
        var next = 0
        var transportFailures: [String: Int] = [:]
        var answers: [String: Int] = [:]
    }

    /// - Parameter instances: the instances' own base URLs (`http://127.0.0.1:PORT`).
    public init(front: String, instances: [String], transport: any HTTPClient) {
        self.front = front
        self.transport = transport
        state = Mutex(State(rotation: instances))
    }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        guard Self.origin(of: request.url) == Self.origin(of: URL(string: front)) else { return try await transport.send(request) }
        let instance = state.withLock { state -> String? in
            guard !state.rotation.isEmpty else { return nil }
            defer { state.next += 1 }
            return state.rotation[state.next % state.rotation.count]
        }
        guard let instance else { throw .transport("the load balancer has no instance left") }
        return try await send(request, to: instance)
    }

    /// `request` (addressed to `front`) sent to `instance`, whatever the rotation: a test racing one single-use
    /// value at each instance.
    public func send(_ request: HTTPRequest, to instance: String) async throws(HTTPError) -> HTTPResponse {
        guard var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false),
            let target = URLComponents(string: instance)
        else { throw .transport("cannot address \(request.url) to \(instance)") }
        components.scheme = target.scheme
        components.host = target.host
        components.port = target.port
        guard let url = components.url else { throw .transport("cannot address \(request.url) to \(instance)") }
        var forwarded = request
        forwarded.url = url
        do {
            let response = try await transport.send(forwarded)
            state.withLock { $0.answers[instance, default: 0] += 1 }
            return response
        } catch {
            // A request the test itself cancelled (the end of a load) says nothing about the instance.
            if !Task.isCancelled { state.withLock { $0.transportFailures[instance, default: 0] += 1 } }
            throw error
        }
    }

    /// A client sending everything addressed to `front` to `instance` only.
    public func pinned(to instance: String) -> any HTTPClient { Pinned(balancer: self, instance: instance) }

    /// Takes `instance` out of the rotation (requests already sent to it are not affected).
    public func remove(_ instance: String) {
        state.withLock { $0.rotation.removeAll { $0 == instance } }
    }

    /// Requests sent to `instance` that got no answer (connection refused or cut off), cancelled ones aside.
    public func transportFailures(at instance: String) -> Int { state.withLock { $0.transportFailures[instance] ?? 0 } }

    /// Requests `instance` answered (with any status).
    public func answers(from instance: String) -> Int { state.withLock { $0.answers[instance] ?? 0 } }

    private static func origin(of url: URL?) -> String? {
        guard let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        return "\(components.scheme ?? "")://\(components.host ?? ""):\(components.port ?? -1)"
    }

    private struct Pinned: HTTPClient {
        let balancer: LoadBalancer
        let instance: String

        func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
            guard Self.sameOrigin(request.url, balancer.front) else { return try await balancer.transport.send(request) }
            return try await balancer.send(request, to: instance)
        }

        private static func sameOrigin(_ url: URL, _ front: String) -> Bool {
            LoadBalancer.origin(of: url) == LoadBalancer.origin(of: URL(string: front))
        }
    }
}
