import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// The life of the connection: the first connect (each server once), then reconnecting after every drop with
/// backoff and jitter until `maxReconnectAttempts` consecutive failures.
extension NATSClient {
    func runConnections() async {
        var lastError: NATSError = .noServersAvailable
        var index = 0
        var connected = false
        while index < pool.count, state != .closed {
            do throws(NATSError) {
                try await session(with: pool[index])
                connected = true
                break
            } catch {
                lastError = error
                index += 1
            }
        }
        guard connected else {
            if state != .closed {
                connectWaiter?.resume(throwing: lastError)
                connectWaiter = nil
                await close()
            }
            return
        }
        let backoff = ReconnectBackoff(
            base: options.reconnectWait, maximum: options.maxReconnectWait, jitter: options.reconnectJitter,
            random: options.random)
        var failures = 0
        while state != .closed, !Task.isCancelled {
            if let max = options.maxReconnectAttempts, failures >= max { break }
            do { try await Task.sleep(for: backoff.delay(afterFailures: failures)) } catch { break }
            guard state != .closed else { break }
            // Prefer another server than the one just lost (it may be the one that died).
            index = (index + 1) % pool.count
            do throws(NATSError) {
                try await session(with: pool[index])
                failures = 0
            } catch {
                failures += 1
                lastError = error
            }
        }
        if state != .closed {
            emit(.error(.noServersAvailable))
            await close()
        }
    }

    /// One connection: handshake, then its operations until it ends. Throws only if the handshake failed; returns
    /// after a connection that was established has dropped (or the client was closed).
    func session(with server: ServerAddress) async throws(NATSError) {
        let (stream, continuation) = AsyncStream<ConnectionEvent>.makeStream()
        let limits = NATSProtocolParser.Limits(maxControlLine: options.maxControlLine)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.nanoseconds(Int64(options.connectTimeout.components.seconds) * 1_000_000_000
                    + options.connectTimeout.components.attoseconds / 1_000_000_000))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            NATSChannelHandler(limits: limits, events: continuation))
                    }
                }
                .connect(host: server.host, port: server.port).get()
        } catch {
            continuation.finish()
            throw .connectFailed(server.description)
        }
        let writer = OutboundWriter(channel: channel)
        var events = stream.makeAsyncIterator()
        let timeout = options.connectTimeout
        let watchdog = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { channel.close(promise: nil) }
        }
        let info: ServerInfo
        do throws(NATSError) {
            info = try await handshake(server: server, channel: channel, writer: writer, events: &events)
            watchdog.cancel()
        } catch {
            watchdog.cancel()
            channel.close(promise: nil)
            throw error
        }
        guard state != .closed else {
            channel.close(promise: nil)
            return
        }
        let isReconnect = state == .disconnected
        serverInfo = info
        connectedServer = server
        self.writer = writer
        state = .connected
        learnServers(from: info)
        restore(on: writer)
        emit(isReconnect ? .reconnected(server) : .connected(server))
        connectWaiter?.resume()
        connectWaiter = nil
        startKeepAlive(writer)

        while let event = await events.next(isolation: self) {
            switch event {
            case .operation(let operation): handle(operation, from: server)
            case .failed(let error): emit(.error(error))
            }
        }
        keepAliveTask?.cancel()
        guard state != .closed else { return }
        self.writer = nil
        connectedServer = nil
        state = .disconnected
        connectionLost()
        emit(.disconnected(server))
    }

    /// INFO, then TLS if wanted or required, then CONNECT + PING answered by PONG (or -ERR: authentication failed).
    private func handshake(
        server: ServerAddress, channel: any Channel, writer: OutboundWriter,
        events: inout AsyncStream<ConnectionEvent>.Iterator
    ) async throws(NATSError) -> ServerInfo {
        let info: ServerInfo
        switch await events.next(isolation: self) {
        case .operation(.info(let i))?: info = i
        case .failed(let error)?: throw error
        case nil: throw .connectFailed(server.description)
        default: throw .protocolViolation("the server did not start with INFO")
        }
        let useTLS = options.tls != nil || server.requiresTLS || info.tlsRequired == true
        if useTLS {
            guard let configuration = options.tls else {
                throw .tlsFailure("the server requires TLS and no TLS configuration was given")
            }
            let hostname: String? = (try? SocketAddress(ipAddress: server.host, port: 0)) == nil ? server.host : nil
            do {
                let context = try NIOSSLContext(configuration: configuration)
                try await channel.eventLoop.submit {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: hostname)
                    try channel.pipeline.syncOperations.addHandler(handler, position: .first)
                }.get()
            } catch {
                throw .tlsFailure("\(error)")
            }
        }
        var connect = ConnectOptions(tls_required: useTLS, name: options.name, echo: options.echo)
        switch options.authentication {
        case .none: break
        case .token(let token): connect.auth_token = token
        case .userPassword(let user, let password):
            connect.user = user
            connect.pass = password
        case .credentials(let credentials):
            guard let nonce = info.nonce else {
                throw .authorizationViolation("the server sent no nonce to sign (not in operator mode?)")
            }
            connect.jwt = credentials.jwt
            connect.sig = try credentials.signNonce(nonce)
        }
        var buffer = channel.allocator.buffer(capacity: 512)
        ClientCommand.writeConnect(connect, into: &buffer)
        ClientCommand.writePing(into: &buffer)
        writer.write(buffer)
        while true {
            switch await events.next(isolation: self) {
            case .operation(.pong)?: return info
            case .operation(.error(let text))?: throw .authorizationViolation(text)
            case .failed(let error)?: throw error
            case nil: throw .connectFailed(server.description)
            default: continue
            }
        }
    }

    func handle(_ operation: ServerOperation, from server: ServerAddress) {
        switch operation {
        case .message(let message): deliver(message)
        case .pong: handlePong()
        case .ping, .ok: break
        case .info(let info):
            serverInfo = info
            learnServers(from: info)
            if info.lameDuckMode == true { emit(.lameDuckMode(server)) }
        case .error(let text): handleServerError(text)
        }
    }

    func deliver(_ message: InboundMessage) {
        if message.sid == inboxSID {
            handleReply(message)
            return
        }
        guard let subscription = subscriptions[message.sid] else { return }
        subscription.continuation?.yield(
            NATSMessage(
                subject: message.subject, replyTo: message.replyTo, headers: message.headers, status: message.status,
                payload: message.payload))
    }

    /// `-ERR`: a permissions violation ends only the subscription or request concerned (the server keeps the
    /// connection); other errors are reported, and the server closes the connection after most of them.
    func handleServerError(_ text: String) {
        guard let violation = PermissionViolation(text) else {
            let lower = text.lowercased()
            let error: NATSError =
                lower.contains("authorization") || lower.contains("authentication")
                ? .authorizationViolation(text) : .serverError(text)
            emit(.error(error))
            recordErrorForPendingFlushes(error)
            return
        }
        let error = NATSError.permissionViolation(operation: violation.operation, subject: violation.subject)
        emit(.error(error))
        recordErrorForPendingFlushes(error)
        if violation.isSubscription {
            for (sid, subscription) in subscriptions
            where subscription.subject == violation.subject && (violation.queue == nil || violation.queue == subscription.queue) {
                subscriptions[sid] = nil
                subscription.continuation?.finish(throwing: error)
                if sid == inboxSID {
                    // No replies can arrive: fail the waiting requests; the next request subscribes again.
                    inboxSID = nil
                    for token in requests.keys { finishRequest(token, .failure(error)) }
                }
            }
        } else {
            for (token, request) in requests where request.subject == violation.subject {
                finishRequest(token, .failure(error))
            }
        }
    }

    /// Adds the cluster's other servers (INFO `connect_urls`) to the pool.
    func learnServers(from info: ServerInfo) {
        for url in info.connectURLs ?? [] {
            guard let address = try? ServerAddress(url), !pool.contains(where: { $0.host == address.host && $0.port == address.port })
            else { continue }
            pool.append(address)
        }
    }

    func startKeepAlive(_ writer: OutboundWriter) {
        keepAliveTask?.cancel()
        let interval = options.pingInterval
        keepAliveTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { return }
                await self?.keepAliveTick(writer)
            }
        }
    }

    /// A PING per interval; too many unanswered means the connection is stale: drop it (and reconnect).
    func keepAliveTick(_ writer: OutboundWriter) {
        guard state == .connected, self.writer === writer else { return }
        if pendingPings.count >= options.maxPingsOut {
            emit(.error(.timeout))
            writer.close()
            return
        }
        sendPing(on: writer, waiter: nil)
    }
}

/// `Permissions Violation for Publish to "subject"` or `… for Subscription to "subject"` (optionally
/// `using queue "q"`), as nats-server words it.
struct PermissionViolation {
    var operation: String
    var subject: String
    var queue: String?
    var isSubscription: Bool { operation.lowercased().hasPrefix("subscription") }

    init?(_ text: String) {
        let prefix = "Permissions Violation for "
        guard text.hasPrefix(prefix), let to = text.range(of: " to ") else { return nil }
        operation = String(text[text.index(text.startIndex, offsetBy: prefix.count)..<to.lowerBound])
        let quoted = text[to.upperBound...].split(separator: "\"", omittingEmptySubsequences: false)
        guard quoted.count >= 3 else { return nil }
        subject = String(quoted[1])
        queue = quoted.count >= 5 && quoted[2].contains("queue") ? String(quoted[3]) : nil
    }
}
