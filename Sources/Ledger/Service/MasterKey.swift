import Foundation
import ServiceSupport
import TesseraCore

/// The operator's key that seals every private key and LAT the ledger stores, in `ledger-master.key`.
typealias MasterKey = ServiceMasterKey

extension ServiceMasterKey {
    static let ledgerFileName = "ledger-master.key"

    static func loadOrCreate(in directory: URL, random: any RandomSource) throws -> ServiceMasterKey {
        do {
            return try loadOrCreate(file: directory.appendingPathComponent(ledgerFileName), random: random)
        } catch {
            throw LedgerError.startup(error.description)
        }
    }
}

public enum LedgerError: Error, Sendable, CustomStringConvertible {
    case startup(String)

    public var description: String {
        switch self {
        case .startup(let why): "the ledger cannot start: \(why)"
        }
    }
}
