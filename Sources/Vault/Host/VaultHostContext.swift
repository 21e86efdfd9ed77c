import Foundation
import ServiceSupport
import TesseraCore

/// What the runtimes of one host share.
struct VaultHostContext: Sendable {
    let hostID: String
    let sql: ServiceSQL
    let store: VaultStore
    let bus: VaultBus
    let clock: any TesseraClock
    let random: any RandomSource
    let policy: VaultPolicy
}
