import ArgumentParser
import Foundation
import Ledger
import NATSClient
import TesseraCore
import ServiceSupport
import Vault

/// `tessera ledger …`: the personal vault's ledger service.
struct LedgerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger", abstract: "Personal vault ledger (enrollment, password authentication).",
        subcommands: [LedgerServe.self, LedgerMigrate.self, LedgerInvite.self, LedgerNATSConfig.self])

    struct Location: ParsableArguments {
        @Option(help: "Database URL (default: $DATABASE_URL, else SQLite under the ledger directory).") var database: String?
        @Option(name: .customLong("operator-dir"), help: "Ledger directory: master key, SQLite file (default: $TESSERA_HOME/ledger).")
        var operatorDirectory: String?

        var directory: URL { operatorDirectory.map { URL(fileURLWithPath: $0) } ?? TesseraHome.url.appendingPathComponent("ledger") }

        /// The NATS operator and system account the ledger signs members' accounts with (seed files, 0600).
        func natsIdentity() throws -> NATSOperatorIdentity {
            do {
                return try NATSOperatorIdentity.loadOrCreate(in: directory, name: "tessera-ledger", random: SystemRandomSource(), clock: SystemClock())
            } catch {
                throw UserFacingError("the NATS operator keys in \(directory.path): \(error)")
            }
        }

        func configuration() throws -> LedgerConfiguration {
            let url = database ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? directory.appendingPathComponent("ledger.sqlite").path
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                return LedgerConfiguration(database: try ServiceDatabase(url: url), directory: directory)
            } catch {
                throw UserFacingError("--database: \(error)")
            }
        }
    }
}

/// `tessera ledger serve`.
struct LedgerServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the ledger (/api/v1: enroll/start, enroll/set-password, enroll/finalize, action/request, auth/execute).",
        discussion: """
            The master key that seals every stored private key and LAT is ledger-master.key in the ledger directory \
            (32 bytes, 0600, created on first start): back it up, and never share it. With --nats, the NATS server \
            must trust the ledger's operator: start it with the configuration `tessera ledger nats-config` prints.
            """)
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 8095
    @OptionGroup var location: LedgerCommand.Location
    @Option(help: "NATS server URL(s), comma-separated: finalize then creates each member's NATS account there.") var nats: String?
    @Option(name: .customLong("kdf-cost"), help: "Argon2id cost the devices run, m=KIB,t=ITERATIONS,p=LANES (default m=65536,t=3,p=4).")
    var kdfCost: String?
    @Option(name: .customLong("vault-database"), help: "With --nats: the vault hosts' database, for /vault/* (default: vault.sqlite in the ledger directory).")
    var vaultDatabase: String?
    @OptionGroup var migration: MigrationOptions
    @Option(
        name: .customLong("rate-limit"),
        help: "Requests per minute to the enrollment and authentication endpoints, per client address and per user, as ADDRESS,USER (default 120,30). Behind a proxy every client has the proxy's address.")
    var rateLimit: String?

    func run() async throws {
        ServiceLogging.bootstrapJSON()
        var configuration = try location.configuration()
        configuration.migration = migration.policy(for: configuration.database)
        if let rateLimit {
            let parts = rateLimit.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let address = parts[0], let user = parts[1], address > 0, user > 0 else {
                throw UserFacingError("--rate-limit must be ADDRESS,USER (two positive request counts per minute)")
            }
            (configuration.perAddressPerMinute, configuration.perUserPerMinute) = (address, user)
        }
        if let kdfCost {
            let cost = try ProviderSetup.parseArgon2Cost(kdfCost)
            configuration.kdfMemoryKiB = cost.memoryKiB
            configuration.kdfIterations = cost.iterations
            configuration.kdfParallelism = cost.parallelism
        }
        var vaultDatabase: VaultDatabase?
        if let nats {
            let identity = try location.natsIdentity()
            let urls = nats.split(separator: ",").map(String.init)
            configuration.nats = NATSProvisioner(identity: identity, servers: urls)
            // The vault lifecycle (/vault/*, the identity key at finalize) lives in the hosts' database.
            let setup = try VaultHostSetup(operatorDirectory: location.directory, database: self.vaultDatabase)
            let database = try await setup.open(migration: migration.policy(for: setup.database))
            vaultDatabase = database
            let bus = VaultBus.nats(urls: urls, identity: identity, clock: SystemClock(), random: SystemRandomSource())
            configuration.vault = VaultLifecycleBackend(vaults: VaultDirectory(database: database, bus: bus))
        }
        let server: LedgerServer
        do {
            server = try await LedgerServer.start(configuration, host: host, port: port)
        } catch {
            await vaultDatabase?.shutdown()
            throw UserFacingError("\(error)")
        }
        FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))
        await ServiceTermination.run { [vaultDatabase] in
            await server.shutdown()
            await vaultDatabase?.shutdown()
        }
    }
}

/// `tessera ledger invite`: a new single-use invitation code, printed on the last line.
struct LedgerInvite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "invite", abstract: "Create a single-use invitation code (valid 7 days).")
    @OptionGroup var location: LedgerCommand.Location

    func run() async throws {
        let code: String
        do {
            code = try await LedgerServer.invite(try location.configuration())
        } catch let error as UserFacingError {
            throw error
        } catch {
            throw UserFacingError("\(error)")
        }
        print(code)
    }
}

/// `tessera ledger nats-config`: a nats-server configuration trusting the ledger's operator (operator mode, full
/// resolver, the system account preloaded), so that the accounts the ledger pushes at finalize are accepted.
struct LedgerNATSConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "nats-config", abstract: "Print a nats-server configuration that trusts this ledger's operator.")
    @Option(help: "Address the server listens on.") var listen = "127.0.0.1:4222"
    @Option(name: .customLong("resolver-dir"), help: "The server's account directory.") var resolverDirectory = "./nats-accounts"
    @OptionGroup var location: LedgerCommand.Location

    func run() async throws {
        print(try location.natsIdentity().serverConfiguration(listen: listen, resolverDirectory: resolverDirectory), terminator: "")
    }
}
