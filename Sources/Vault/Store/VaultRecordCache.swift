import Foundation

/// The rows of `vt_records` a running vault read lately, still sealed (a memory dump shows no more than the
/// database would). The lease makes the running vault the only writer of its rows, so a row read stays true until
/// the vault's own next state-changing command, which calls `invalidate()` once it committed. A read that began
/// before an invalidation does not store what it read (the generation moved on), so a value older than a
/// committed write is never served.
final class VaultRecordCache: @unchecked Sendable {
    /// A row as read: nil for no row at all.
    typealias Entry = RecordRow?

    private let lock = NSLock()
    private var rows: [String: Entry] = [:]
    private var bytes = 0
    private var generationValue: UInt64 = 0
    /// Sealed bytes kept per vault; past it the cache starts over (thousands of vaults share a host).
    let budget: Int

    init(budget: Int = 128 * 1024) { self.budget = budget }

    var generation: UInt64 { lock.withLock { generationValue } }

    /// `.some(nil)`: known to be absent; `nil`: not cached.
    func lookup(_ id: String) -> Entry? {
        lock.withLock { rows[id] }
    }

    /// Keeps `row` for `id` unless the cache was invalidated since `generation` was read.
    func store(_ id: String, _ row: Entry, readAt generation: UInt64) {
        let size = id.utf8.count + (row.map { $0.name_sealed.utf8.count + ($0.value_sealed?.utf8.count ?? 0) } ?? 0)
        lock.withLock {
            guard generation == generationValue, size <= budget else { return }
            if bytes + size > budget {
                rows.removeAll(keepingCapacity: true)
                bytes = 0
            }
            if rows.updateValue(row, forKey: id) == nil { bytes += size }
        }
    }

    /// Forgets everything: called after every command that may have written records.
    func invalidate() {
        lock.withLock {
            generationValue &+= 1
            rows.removeAll()
            bytes = 0
        }
    }
}
