import VaultProtocol

extension VaultRuntime {
    /// A receive reservation on its way to the database: how far it goes, and the write (true once committed).
    struct PendingReservation: Sendable {
        let upTo: UInt64
        let write: Task<Bool, Never>
    }

    /// True once `seq` may be answered: it is within the session's saved receive floor, raised here first when it
    /// is not (to the end of `seq`'s block, `SessionGate.floor`). A vault restored from the database then starts its
    /// replay window above every seq this one answered, reads included, for one write per block of 100.
    ///
    /// The actor is reentrant: whatever else arrives for the same block while the write is on its way waits for that
    /// same write (one write, and nothing of the block is answered before it committed). False when the write
    /// failed: the caller drops the message unanswered, and the app sends it again under a new seq.
    func reserveReceive(sessionID: String, seq: UInt64) async -> Bool {
        let upTo: UInt64
        switch gate.floor(sessionID, seq: seq) {
        case .within: return true
        case .refused: return false
        case .reserve(let end): upTo = end
        }
        if let pending = pendingReservations[sessionID], seq <= pending.upTo { return await pending.write.value }
        let write = writeReservation
        let task = Task { await write(sessionID, upTo) }
        pendingReservations[sessionID] = PendingReservation(upTo: upTo, write: task)
        let saved = await task.value
        if pendingReservations[sessionID]?.upTo == upTo { pendingReservations[sessionID] = nil }
        // Only a committed write raises the floor in memory.
        if saved { gate.raiseFloor(sessionID, to: upTo) }
        return saved
    }

    /// Tests replace the write (to hold it, count it or make it fail).
    func setWriteReservation(_ write: @escaping @Sendable (_ sessionID: String, _ upTo: UInt64) async -> Bool) {
        writeReservation = write
    }
}
