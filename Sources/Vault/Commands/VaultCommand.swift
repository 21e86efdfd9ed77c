import TesseraJOSE
import VaultProtocol

/// One handler of the catalogue on the vault's side: its typed request and result (the wire's pair:
/// `Request.Result`), how it touches the vault (`effect`), and what it does. Registered once, in
/// `VaultCommands.all` (ARCHITECTURE.md decision 11: a handler or command is a typed value registered once, not a
/// case repeated in several switches); the runtime and the executor ask the command, never the handler's name.
protocol VaultCommand: Sendable where Result == Request.Result {
    associatedtype Request: VaultRequestPayload
    associatedtype Result: VaultResultPayload
    /// Decides where and how the command runs (`CommandEffect`).
    static var effect: CommandEffect { get }
    /// The command itself, with exactly what it may use (`CommandContext`). A `VaultEventError` is the answer's
    /// error; any other error becomes `server_error` (or `temporarily_unavailable` for the storage).
    static func run(_ request: Request, in context: CommandContext) async throws -> Result
}

extension VaultCommand {
    static var handler: VaultHandler { Request.handler }

    /// The payload decoded strictly as `Request` (a refusal is `invalid_request`), run, and the typed result as the
    /// JSON of the answer, which the executor encodes once.
    static func answer(_ payload: JSONObject, in context: CommandContext) async throws -> JSONObject {
        try await run(Request(payload: payload), in: context).result
    }
}

/// How a command touches the vault, which decides where it runs (`VaultRuntime.receive`, `CommandExecutor`). Module
/// README, "Commands".
enum CommandEffect: Sendable, Equatable {
    /// Changes nothing and records nothing: runs beside the command loop (up to 64 per vault, so its database wait
    /// overlaps the next commands), and may read the running vault's record cache.
    case read
    /// Changes what the vault stores: runs one at a time, in the bus's order, in one transaction with the record of
    /// its answer, so a retry of the event (same id, new envelope) gets the first answer and changes nothing twice.
    case write
    /// Publishes to peer vaults and waits for them (or pushes account JWTs): runs one at a time but outside any
    /// transaction, so no database lock is held while the network is awaited, and makes its own writes, each one
    /// idempotent — by connection id (an invite accepted again re-sends the same accept, a revoke of a revoked
    /// connection changes nothing) and by message id (`VaultClient` always sends one, so a retried `message.send` is
    /// the same message).
    case peer
    /// Changes the app's sessions (`session.rotate`): runs one at a time, outside any transaction and unrecorded (a
    /// retry makes another session; the app adopts the answer it gets). The credential rotation check is left to the
    /// next other command: a rotation's push would go out under the session being replaced.
    case session

    /// Whether the running vault's record cache must be forgotten after the command (it may have written records;
    /// a refused write rolls back, but forgetting is always safe).
    var mayWriteRecords: Bool { self == .write || self == .peer }
}
