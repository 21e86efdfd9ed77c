import ArgumentParser
import Foundation
import HolderKit
import ITWalletProtocol
import TesseraJOSE
import WalletInstanceKit
import WalletProvider

/// `tessera wallet-instance …`: this wallet's Wallet Instance against a Wallet Provider.
struct WalletInstanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet-instance",
        abstract: "Activate, inspect and revoke this wallet's IT-Wallet Wallet Instance.",
        discussion: """
            The instance state is $TESSERA_HOME/wallet/instance.json; the hardware key lives in the wallet's key store and \
            is attested by the test Device Integrity Service (Android-format chains under $TESSERA_HOME/device-integrity/root-certificate.pem, \
            which the provider must be started with: --trust-test-attestation-root). The account login (e-mail, password and \
            the TOTP secret, as an authenticator app keeps it) is in $TESSERA_HOME/wallet/account.json after `signup`.
            """,
        subcommands: [Signup.self, Activate.self, Status.self, Attest.self, KeyAttest.self, Revoke.self, TestRoot.self])

    struct Options: ParsableArguments {
        @Option(help: "Wallet directory (default: $TESSERA_HOME/wallet).") var wallet: String?
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var tls: TLSTrustOptions
    }

    /// `--spec` and `--anchor`, for the commands that speak a version with the provider.
    struct VersionOptions: ParsableArguments {
        @Option(help: "IT-Wallet version to speak: 0.9, 1.0, 1.3 or 1.5 (default: the newest the provider advertises; it must advertise a forced one).")
        var spec: ITWalletVersion?
        @Option(help: "Trust anchor (PEM) of the provider's attestation signing chain (default: $TESSERA_HOME/provider/signing/root.pem).")
        var anchor: String?
    }

    /// `signup`: creates the account at the provider and keeps its login.
    struct Signup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an account at the Wallet Provider.")
        @Option(help: "The Wallet Provider's URL.") var provider: String
        @Option(help: "E-mail address.") var email: String
        @Option(help: "Password (at least 12 characters).") var password: String
        @OptionGroup var options: Options

        func run() async throws {
            let account = try await ProviderAccount.signUp(provider: provider, email: email, password: password, wallet: TesseraHome.wallet(options.wallet))
            print(options.json ? #"{"account_id":"\#(account)"}"# : "account \(account) created; login kept in the wallet")
        }
    }

    /// `activate`: WI ACT (federation check, key attestation, registration, first Wallet Attestation).
    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Activate the Wallet Instance (Installed → Operational).")
        @Option(help: "The Wallet Provider's URL (default: the one of `signup`).") var provider: String?
        @OptionGroup var versions: VersionOptions
        @OptionGroup var options: Options

        func run() async throws {
            let context = try WalletInstanceContext(wallet: options.wallet)
            var account = try context.account()
            let session = try await account.logIn()
            let attester = try context.attester(anchor: versions.anchor)
            do {
                let record = try await attester.activate(provider: provider ?? account.provider, session: session, spec: versions.spec)
                context.print(record, json: options.json)
            } catch {
                throw UserFacingError("\(error)")
            }
        }
    }

    /// `status`: the local state, refreshed from the provider when the account can log in.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the instance's state (asks the provider when activated).")
        @OptionGroup var options: Options

        func run() async throws {
            let context = try WalletInstanceContext(wallet: options.wallet)
            var record = try context.client.store.load()
            if record.providerURL != nil, var account = try? context.account() {
                do {
                    let session = try await account.logIn()
                    _ = try await context.client.refreshStatus(session: session)
                    // The wallet's credentials drive Valid ⇄ Operational; the provider hears of the PID change.
                    switch try context.pidSync.sync(at: Date()) {
                    case .pidIssued?: try await context.client.reportPID(active: true, session: session)
                    case .pidExpired?, .pidDeleted?: try await context.client.reportPID(active: false, session: session)
                    default: break
                    }
                    record = try context.client.store.load()
                } catch {
                    throw UserFacingError("\(error)")
                }
            }
            context.print(record, json: options.json)
        }
    }

    /// `attest`: a fresh Wallet (Instance) Attestation in the instance's version (or `--spec`), verified, kept and
    /// printed with its decoded claims (1.0: all three formats).
    struct Attest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Obtain a fresh Wallet (Instance) Attestation and print it with its claims.")
        @OptionGroup var versions: VersionOptions
        @OptionGroup var options: Options

        func run() async throws {
            let context = try WalletInstanceContext(wallet: options.wallet)
            let attester = try context.attester(anchor: versions.anchor)
            let record = try await userFacing { () async throws(WalletInstanceError) in try await attester.attest(spec: versions.spec) }
            print(options.json ? JSONValue.object(AttestationPrinter.json(record)).serializedString : AttestationPrinter.text(record))
        }
    }

    /// `key-attest`: new wallet key(s), attested by the test authority, and a Key Attestation for them (1.3, 1.5).
    struct KeyAttest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key-attest", abstract: "Obtain a Key Attestation (IT-Wallet 1.3/1.5) for new wallet keys and print it.")
        @Option(help: "How many wallet keys to create and attest in one request.") var keys = 1
        @OptionGroup var versions: VersionOptions
        @OptionGroup var options: Options

        func run() async throws {
            let context = try WalletInstanceContext(wallet: options.wallet)
            let attester = try context.attester(anchor: versions.anchor)
            let kept = try await userFacing { () async throws(WalletInstanceError) in
                try await attester.keyAttest(keys: context.integrity, count: keys, spec: versions.spec)
            }
            let claims = AttestationPrinter.claims(format: "jwt", kept.jwt)
            if options.json {
                let ids: [JSONValue] = kept.keyIDs.map { .string($0) }
                print(JSONValue.object([
                    "spec": .string(kept.version), "key_attestation": .string(kept.jwt), "key_ids": .array(ids), "claims": claims,
                ]).serializedString)
            } else {
                print("spec: \(kept.version)\nkeys: \(kept.keyIDs.joined(separator: ", "))\nclaims: \(claims.serializedString)\n\(kept.jwt)")
            }
        }
    }

    /// `revoke`: asks the provider to revoke this instance (WI REV ⇒ Installed, hardware key deleted).
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke this Wallet Instance at the provider.")
        @OptionGroup var options: Options

        func run() async throws {
            let context = try WalletInstanceContext(wallet: options.wallet)
            do {
                var account = try context.account()
                let record = try await context.client.revoke(session: try await account.logIn())
                context.print(record, json: options.json)
            } catch let error as UserFacingError {
                throw error
            } catch {
                throw UserFacingError("\(error)")
            }
        }
    }

    /// `test-root`: where the test attestation root is (created if missing), for the provider's command line.
    struct TestRoot: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "test-root", abstract: "Print the path of the test attestation root PEM.")
        func run() async throws {
            _ = try TestIntegrity.authority()
            print(TestIntegrity.rootPEMPath().path)
        }
    }
}

extension ITWalletVersion: ExpressibleByArgument {}

/// Runs a WalletInstanceKit step; its typed error becomes the sentence the CLI prints.
private func userFacing<T>(_ step: () async throws(WalletInstanceError) -> T) async throws -> T {
    do {
        return try await step()
    } catch {
        throw UserFacingError(error.description)
    }
}
