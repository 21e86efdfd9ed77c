import ArgumentParser
import Foundation
import NATSClient
import TesseraJOSE
import VaultClient
import TesseraCore

extension VaultCommand.Options {
    /// This device's E2E session with its vault: the saved one, else a bootstrap with the ledger's bootstrap
    /// credentials (checked against the identity key the ledger gave at enrollment).
    func connection() async throws -> VaultConnection {
        guard let state = try? client.store.load() else { throw UserFacingError("this device is not enrolled (tessera vault enroll)") }
        guard let nats = state.nats, let urls = nats["nats_url"], let key = Base64URL.bytes(state.vaultIdentityPublicKey ?? ""), key.count == 32 else {
            throw UserFacingError("this device was enrolled at a ledger without vaults (the ledger runs without --nats)")
        }
        let connection = try VaultConnection(
            userGUID: state.userGUID, identityPublicKey: key, connector: NATSServerConnector(urls: urls.split(separator: ",").map(String.init)),
            keyStore: FileVaultSessionKeyStore(directory: stateDirectory))
        do {
            try await connection.connect()
        } catch VaultError.noSession {
            guard let creds = nats["bootstrap_creds"], let bootstrap = try? NATSCredentials(credsFile: creds) else {
                throw UserFacingError("no bootstrap credentials saved: enroll again")
            }
            do {
                try await connection.bootstrap(
                    credentials: bootstrap, device: .init(deviceID: state.deviceID, deviceType: "cli", appVersion: Tessera.version))
            } catch {
                throw UserFacingError("\(error)")
            }
        } catch {
            throw UserFacingError("\(error)")
        }
        return connection
    }

    /// Runs `body` on a connected session, closing it afterwards; vault errors are shown as they are.
    func withVault<T>(_ body: (VaultConnection) async throws -> T) async throws -> T {
        let connection = try await connection()
        do {
            let result = try await body(connection)
            await connection.close()
            return result
        } catch {
            await connection.close()
            if error is UserFacingError { throw error }
            throw UserFacingError("\(error)")
        }
    }
}

/// `tessera vault secrets add|get|list|delete`.
struct VaultSecrets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets", abstract: "Secrets kept in your vault (encrypted end to end and at rest).",
        subcommands: [Add.self, Get.self, List.self, Delete.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a secret (refused if the key exists; use --replace).")
        @Argument var key: String
        @Argument var value: String
        @Flag(help: "Replace the value when the key exists.") var replace = false
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let version = try await options.withVault { vault in
                replace ? try await vault.updateSecret(key, value: value).version : try await vault.addSecret(key, value: value).version
            }
            print("\(key) stored (version \(version))")
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a secret's value.")
        @Argument var key: String
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let secret = try await options.withVault { try await $0.secret(key) }
            print(options.json ? JSONValue.object(secret.result).serializedString : secret.value)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the secrets' keys.")
        @Option(help: "Only keys starting with this.") var prefix: String?
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let keys = try await options.withVault { vault in
                var keys: [String] = []
                var cursor: String?
                repeat {
                    let page = try await vault.listSecrets(prefix: prefix, cursor: cursor)
                    keys += page.items.map(\.key)
                    cursor = page.nextCursor
                } while cursor != nil
                return keys
            }
            if options.json { print(JSONValue.array(keys.map(JSONValue.string)).serializedString) } else { keys.forEach { print($0) } }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a secret.")
        @Argument var key: String
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            _ = try await options.withVault { try await $0.deleteSecret(key) }
            print("\(key) deleted")
        }
    }
}

/// `tessera vault profile get|set`.
struct VaultProfile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile", abstract: "Your profile, kept in your vault.", subcommands: [Get.self, Set.self])

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the profile.")
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            let profile = try await options.withVault { try await $0.profile() }
            if options.json {
                print(JSONValue.object(profile.result).serializedString)
            } else {
                for (name, value) in profile.profile.sorted(by: { $0.key < $1.key }) { print("\(name)=\(value)") }
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set fields (name=value) or remove them (name=).")
        @Argument(help: "name=value pairs; an empty value removes the field.") var fields: [String]
        @OptionGroup var options: VaultCommand.Options

        func run() async throws {
            var set: [String: String] = [:]
            var remove: [String] = []
            for field in fields {
                guard let equals = field.firstIndex(of: "="), equals != field.startIndex else { throw UserFacingError("\(field): expected name=value") }
                let name = String(field[..<equals]), value = String(field[field.index(after: equals)...])
                if value.isEmpty { remove.append(name) } else { set[name] = value }
            }
            let result = try await options.withVault { try await $0.updateProfile(set: set.isEmpty ? nil : set, remove: remove.isEmpty ? nil : remove) }
            print("profile updated (version \(result.version))")
        }
    }
}

/// `tessera vault status|start|stop`: the vault's lifecycle at the ledger (device-signed requests).
struct VaultStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the vault's state at the ledger.")
    @OptionGroup var options: VaultCommand.Options

    func run() async throws { try await VaultLifecyclePrint.run(options) { try await $0.status() } }
}

struct VaultStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Ask for the vault to run (a host takes it).")
    @OptionGroup var options: VaultCommand.Options

    func run() async throws { try await VaultLifecyclePrint.run(options) { try await $0.start() } }
}

struct VaultStop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Ask for the vault to stop (its data stays).")
    @OptionGroup var options: VaultCommand.Options

    func run() async throws { try await VaultLifecyclePrint.run(options) { try await $0.stop() } }
}

enum VaultLifecyclePrint {
    static func run(_ options: VaultCommand.Options, _ call: (VaultClient) async throws -> VaultLifecycleStatus) async throws {
        let status: VaultLifecycleStatus
        do {
            status = try await call(options.client)
        } catch {
            throw UserFacingError("\(error)")
        }
        if options.json {
            var object: JSONObject = [
                "state": .string(status.state), "desired_state": .string(status.desiredState), "progress": .integer(Int64(status.progress)),
                "updated_at": .integer(Int64(status.updatedAt.timeIntervalSince1970)),
            ]
            if let host = status.host { object["host"] = .string(host) }
            print(JSONValue.object(object).serializedString)
        } else {
            print("vault \(status.state) (wanted: \(status.desiredState), \(status.progress)%)\(status.host.map { " on \($0)" } ?? "")")
        }
    }
}
