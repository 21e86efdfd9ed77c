import Foundation

/// Request-reply over one wildcard inbox subscription (`_INBOX.<random>.*`): each request gets its own token as
/// the last subject token of its reply subject.
extension NATSClient {
    /// Publishes `payload` with a reply subject and waits for the first reply. Throws `noResponders` when the server
    /// answers with status 503 (nobody subscribes to `subject`), `timeout`, or a permissions violation for `subject`.
    public func request(
        _ payload: some DataProtocol, to subject: String, headers: NATSHeaders? = nil, timeout: Duration? = nil
    ) async throws -> NATSMessage {
        guard state != .closed else { throw NATSError.connectionClosed }
        ensureInbox()
        nextToken += 1
        let token = String(nextToken, radix: 36)
        requests[token] = PendingRequest(subject: subject)
        let limit = timeout ?? options.requestTimeout
        requests[token]?.timeout = Task { [weak self] in
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { await self?.finishRequest(token, .failure(.timeout)) }
        }
        do {
            try await publish(payload, to: subject, replyTo: inboxPrefix + "." + token, headers: headers)
        } catch {
            requests.removeValue(forKey: token)?.timeout?.cancel()
            throw error
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<NATSMessage, any Error>) in
                guard let pending = requests[token] else {
                    continuation.resume(throwing: NATSError.connectionClosed)
                    return
                }
                if let result = pending.result {
                    requests[token] = nil
                    continuation.resume(with: result)
                } else {
                    requests[token]?.continuation = continuation
                }
            }
        } onCancel: {
            Task { await self.cancelRequest(token) }
        }
    }

    func cancelRequest(_ token: String) {
        guard let pending = requests.removeValue(forKey: token) else { return }
        pending.timeout?.cancel()
        pending.continuation?.resume(throwing: CancellationError())
    }

    /// Completes a request: resumes its waiter, or keeps the result until the waiter arrives.
    func finishRequest(_ token: String, _ result: Result<NATSMessage, NATSError>) {
        guard var pending = requests[token], pending.result == nil else { return }
        pending.timeout?.cancel()
        if let continuation = pending.continuation {
            requests[token] = nil
            continuation.resume(with: result)
        } else {
            pending.result = result
            requests[token] = pending
        }
    }

    func ensureInbox() {
        guard inboxSID == nil else { return }
        nextSID += 1
        let sid = nextSID
        inboxSID = sid
        let subject = inboxPrefix + ".*"
        subscriptions[sid] = SubscriptionState(subject: subject, queue: nil, continuation: nil)
        sendControl { ClientCommand.writeSubscribe(subject: subject, queue: nil, sid: sid, into: &$0) }
    }

    func handleReply(_ message: InboundMessage) {
        guard message.subject.hasPrefix(inboxPrefix + ".") else { return }
        let token = String(message.subject.dropFirst(inboxPrefix.count + 1))
        guard let pending = requests[token] else { return }
        if message.status?.code == NATSStatus.noRespondersCode, message.payload.isEmpty {
            finishRequest(token, .failure(.noResponders(subject: pending.subject)))
        } else {
            finishRequest(
                token,
                .success(
                    NATSMessage(
                        subject: message.subject, replyTo: message.replyTo, headers: message.headers,
                        status: message.status, payload: message.payload)))
        }
    }
}
