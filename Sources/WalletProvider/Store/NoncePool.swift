import Foundation
import ServiceSupport
import TesseraCore
import TesseraJOSE

/// `GET /nonce` without a database write per request: nonces are stored ahead of time in batches (one multi-row
/// INSERT, so every nonce is durable before it is handed out) and served from memory. A stored nonce is valid for
/// `lifetime + maxAge` and handed out at most `maxAge` after it was stored, so each nonce a wallet receives lives at
/// least `lifetime` (5 minutes). Consumption is unchanged: one `DELETE … RETURNING` in `NonceStore`. Nonces that are
/// never handed out expire with the others and are purged at each refill.
actor NoncePool {
    static let batchSize = 256
    static let lowWater = 64
    static let maxAge: TimeInterval = 30

    private let store: NonceStore
    private let clock: any TesseraClock
    private let random: any RandomSource
    private let lifetime: TimeInterval
    private var ready: [(value: String, stored: Date)] = []
    private var next = 0
    private var refilling: Task<Void, any Error>?

    init(store: NonceStore, clock: any TesseraClock, random: any RandomSource, lifetime: TimeInterval) {
        self.store = store
        self.clock = clock
        self.random = random
        self.lifetime = lifetime
    }

    /// A stored nonce nobody has had yet: 32 random bytes, base64url.
    func take() async throws(WireError) -> String {
        while true {
            let now = clock.now()
            while next < ready.count, now.timeIntervalSince(ready[next].stored) > Self.maxAge { next += 1 }
            if next < ready.count {
                let nonce = ready[next].value
                next += 1
                if ready.count - next < Self.lowWater { startRefill() }
                return nonce
            }
            startRefill()
            guard let refilling else { continue }
            do {
                try await refilling.value
            } catch let error as WireError {
                throw error
            } catch {
                throw WireError(.serviceUnavailable, "temporarily_unavailable", "the database is not available")
            }
        }
    }

    private func startRefill() {
        guard refilling == nil else { return }
        refilling = Task { try await self.refill() }
    }

    private func refill() async throws {
        defer { refilling = nil }
        let now = clock.now()
        let batch = (0..<Self.batchSize).map { _ in Base64URL.encode(random.bytes(32)) }
        try await store.insert(batch: batch, expiresAt: now.addingTimeInterval(lifetime + Self.maxAge))
        ready.removeFirst(next)
        next = 0
        ready += batch.map { ($0, now) }
        try? await store.purgeExpired(now: now)
    }
}
