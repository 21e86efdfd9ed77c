import Foundation
import NATSClient
import Testing

/// A publication the bus must refuse: `NATSClient` learns it at the flush, the in-process bus at the publish.
func expectPublishRefused(_ connection: any NATSConnection, _ subject: String, sourceLocation: SourceLocation = #_sourceLocation) async {
    do {
        try await connection.publish(Data("forbidden".utf8), to: subject)
        try await connection.flush()
        Issue.record("publishing to \(subject) was accepted", sourceLocation: sourceLocation)
    } catch {
        #expect(error as? NATSError == .permissionViolation(operation: "Publish", subject: subject), sourceLocation: sourceLocation)
    }
}

/// A subscription the bus must refuse: its sequence ends with the violation.
func expectSubscriptionRefused(
    _ connection: any NATSConnection, _ subject: String, queue: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let subscription = try await connection.subscribe(to: subject, queue: queue)
    let outcome = try await withTimeout(.seconds(5), "refusal of \(subject)") { () -> NATSError? in
        do {
            for try await _ in subscription { return nil }
            return nil
        } catch {
            return error as? NATSError
        }
    }
    #expect(outcome == .permissionViolation(operation: "Subscription", subject: subject), sourceLocation: sourceLocation)
}

/// Credentials the bus must refuse with nats-server's `Authorization Violation`.
func expectConnectRefused(
    _ bus: BusUnderTest, _ credentials: NATSCredentials, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        let connection = try await bus.connect(credentials)
        Issue.record("\(what): connected", sourceLocation: sourceLocation)
        await connection.close()
    } catch {
        #expect(error as? NATSError == .authorizationViolation("Authorization Violation"), "\(what)", sourceLocation: sourceLocation)
    }
}

/// Waits until `subscription` ends (normally, or with an error, which is returned).
func awaitEnd(of subscription: Subscription, within limit: Duration = .seconds(10)) async throws -> (any Error)? {
    try await withTimeout(limit, "end of \(subscription.subject)") { () -> (any Error)? in
        do {
            for try await _ in subscription {}
            return nil
        } catch {
            return error
        }
    }
}
