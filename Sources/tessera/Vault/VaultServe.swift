import ArgumentParser
import Foundation
import NATSClient
import ServiceSupport
import TesseraCore
import Vault

/// `tessera vault serve`: a vault host.
struct VaultServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run a vault host: serves many users' vaults over NATS.",
        discussion: """
            Every host of a deployment shares the operator directory's NATS operator seeds and vault-master.key (copy \
            them from the ledger's directory) and one database (PostgreSQL via --database or $DATABASE_URL to run several \
            hosts; SQLite in the operator directory by default). Each user's vault runs on exactly one host at a time: a \
            lease in the database, taken over by another host when its holder stops renewing it.
            """)
    @Option(help: "NATS server URL(s), comma-separated (the ledger's --nats).") var nats: String
    @Option(help: "Database URL (default: $DATABASE_URL, else vault.sqlite in the operator directory).") var database: String?
    @Option(name: .customLong("operator-dir"), help: "The ledger's directory: NATS operator seeds, vault-master.key (default: $TESSERA_HOME/ledger).")
    var operatorDirectory: String?
    @Option(name: .customLong("host-id"), help: "This host's name in the leases (default: a random one).") var hostID: String?
    @Option(name: .customLong("lease-time"), help: "Seconds a lease lasts without renewal (a dead host's vaults move after this).")
    var leaseTime: Double = 15
    @OptionGroup var migration: MigrationOptions
    @Option(name: .customLong("admin-host"), help: "Address of the admin listener (/health, /ready, /metrics).")
    var adminHost = "127.0.0.1"
    @Option(name: .customLong("admin-port"), help: "Port of the admin listener (0 picks a free one; -1: none).")
    var adminPort = 0

    func run() async throws {
        ServiceLogging.bootstrapJSON()
        let directory = operatorDirectory.map { URL(fileURLWithPath: $0) } ?? TesseraHome.url.appendingPathComponent("ledger")
        let identity: NATSOperatorIdentity
        do {
            identity = try NATSOperatorIdentity.loadOrCreate(in: directory, name: "tessera-ledger", random: SystemRandomSource(), clock: SystemClock())
        } catch {
            throw UserFacingError("the NATS operator keys in \(directory.path): \(error)")
        }
        guard leaseTime >= 1 else { throw UserFacingError("--lease-time must be at least 1 second") }
        let setup = try VaultHostSetup(operatorDirectory: directory, database: self.database)
        let database = try await setup.open(migration: migration.policy(for: setup.database))
        let bus = VaultBus.nats(
            urls: nats.split(separator: ",").map(String.init), identity: identity, clock: SystemClock(), random: SystemRandomSource())
        let host = VaultHost(database: database, bus: bus, hostID: hostID, leaseTime: leaseTime)
        await host.start()
        var admin: ServiceApplication.Started?
        if adminPort >= 0 {
            admin = try await ServiceApplication.startAdmin(
                name: "tessera-vault", host: adminHost, port: adminPort, readiness: host.readiness)
            if let admin {
                FileHandle.standardOutput.write(Data("admin on \(ServiceApplication.baseURL(host: adminHost, port: admin.port))\n".utf8))
            }
        }
        FileHandle.standardOutput.write(Data("vault host \(host.hostID) serving\n".utf8))
        await ServiceTermination.run { [admin] in
            // The leases first: another host takes these vaults at once.
            await host.shutdown()
            if let admin {
                await admin.app.server.shutdown()
                try? await admin.app.asyncShutdown()
            }
            await database.shutdown()
        }
    }
}
