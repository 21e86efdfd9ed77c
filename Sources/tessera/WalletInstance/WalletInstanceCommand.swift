import ArgumentParser
import Foundation
import HolderKit
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
        subcommands: [Signup.self, Activate.self, Status.self, Attest.self, Revoke.self, TestRoot.self])

    struct Options: ParsableArguments {
        @Option(help: "Wallet directory (default: $TESSERA_HOME/wallet).") var wallet: String?
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var tls: TLSTrustOptions
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
        @OptionGroup var options: Options

        func run() async throws {
            let context = try WalletInstanceContext(wallet: options.wallet)
            var account = try context.account()
            let session = try await account.logIn()
            do {
                let record = try await context.client.activate(provider: provider ?? account.provider, session: session)
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

    /// `attest`: a fresh Wallet Attestation, printed.
    struct Attest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Obtain a fresh Wallet Attestation and print it.")
        @OptionGroup var options: Options

        func run() async throws {
            let context = try WalletInstanceContext(wallet: options.wallet)
            let record: WalletInstanceRecord
            do {
                record = try await context.client.reissue()
            } catch {
                throw UserFacingError("\(error)")
            }
            guard let jwt = record.walletAttestation else { throw UserFacingError("no Wallet Attestation") }
            if options.json {
                let claims = (try? CompactJWS(parsing: jwt).payloadJSON()).map { JSONValue.object($0) } ?? .null
                print(JSONValue.object(["wallet_attestation": .string(jwt), "claims": claims]).serializedString)
            } else {
                print(jwt)
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
