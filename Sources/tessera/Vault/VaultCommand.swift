import ArgumentParser
import Foundation
import TesseraJOSE
import VaultClient

/// `tessera vault …`: this device's side of the personal vault.
struct VaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault", abstract: "The personal vault: enroll at a ledger, log in, run vault hosts, and use your vault over NATS.",
        subcommands: [
            VaultEnroll.self, VaultLogin.self, VaultServe.self, VaultMigrate.self, VaultSecrets.self, VaultProfile.self, VaultConnect.self,
            VaultMessage.self, VaultStatus.self, VaultStart.self, VaultStop.self,
        ])

    struct Options: ParsableArguments {
        @Option(name: .customLong("vault-dir"), help: "Where this device keeps its vault state (default: $TESSERA_HOME/vault).")
        var directory: String?
        @Option(name: .customLong("password-file"), help: "Read the password from this file (else $TESSERA_VAULT_PASSWORD, else a prompt).")
        var passwordFile: String?
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var tls: TLSTrustOptions

        var stateDirectory: URL { directory.map { URL(fileURLWithPath: $0) } ?? TesseraHome.url.appendingPathComponent("vault") }

        var client: VaultClient {
            VaultClient(store: VaultStateStore(directory: stateDirectory), http: SharedHTTP.client)
        }

        func password() throws -> String {
            if let passwordFile {
                guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                    throw UserFacingError("--password-file: cannot read \(passwordFile)")
                }
                return text.trimmingCharacters(in: .newlines)
            }
            if let value = ProcessInfo.processInfo.environment["TESSERA_VAULT_PASSWORD"], !value.isEmpty { return value }
            guard let typed = readPassword(prompt: "password: "), !typed.isEmpty else { throw UserFacingError("no password given") }
            return typed
        }
    }
}

/// Reads a line from the terminal without echo (getpass(3)).
private func readPassword(prompt: String) -> String? {
    guard let pointer = getpass(prompt) else { return nil }
    return String(cString: pointer)
}

struct VaultEnroll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enroll", abstract: "Enroll this device with an invitation code.")
    @Option(help: "The ledger's URL.") var ledger: String
    @Option(help: "The invitation code (`tessera ledger invite`).") var invitation: String
    @Option(name: .customLong("device-id"), help: "This device's identifier (default: the host name).") var deviceID: String?
    @OptionGroup var options: VaultCommand.Options

    func run() async throws {
        let password = try options.password()
        guard password.count >= 12 else { throw UserFacingError("the password must have at least 12 characters") }
        do {
            let enrolled = try await options.client.enroll(
                ledger: ledger, invitation: invitation, password: password, deviceID: deviceID ?? ProcessInfo.processInfo.hostName,
                deviceType: "cli")
            if options.json {
                print(JSONValue.object([
                    "user_guid": .string(enrolled.userGUID), "transaction_keys": .integer(Int64(enrolled.transactionKeys)),
                ]).serializedString)
            } else {
                print("enrolled as \(enrolled.userGUID); \(enrolled.transactionKeys) transaction keys kept")
            }
        } catch {
            throw UserFacingError("\(error)")
        }
    }
}

struct VaultLogin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "login", abstract: "Authenticate with the password (checks the ledger's LAT proof first).")
    @Option(help: "The ledger's URL (must be the one enrolled with).") var ledger: String?
    @OptionGroup var options: VaultCommand.Options

    func run() async throws {
        let client = options.client
        if let ledger {
            let state = try? client.store.load()
            let base = ledger.hasSuffix("/") ? String(ledger.dropLast()) : ledger
            guard state?.ledger == base else { throw UserFacingError("this device is enrolled at \(state?.ledger ?? "no ledger"), not \(ledger)") }
        }
        let password = try options.password()
        do {
            let result = try await client.authenticate(password: password)
            if options.json {
                var object: JSONObject = [
                    "authenticated": true, "used_key_id": .string(result.usedKeyID),
                    "transaction_keys": .integer(Int64(result.transactionKeys)), "cek_version": .integer(Int64(result.cekVersion)),
                    "lat_version": .integer(Int64(result.latVersion)),
                ]
                if let warning = result.warning { object["warning"] = .string(warning) }
                print(JSONValue.object(object).serializedString)
            } else {
                print("authenticated (key \(result.usedKeyID) used; CEK v\(result.cekVersion), LAT v\(result.latVersion); \(result.transactionKeys) keys left)")
                if let warning = result.warning { print("warning: \(warning)") }
            }
        } catch {
            throw UserFacingError("\(error)")
        }
    }
}
