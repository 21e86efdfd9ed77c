#if !canImport(DeviceCheck)
import Foundation

/// Mirrors the Swift face of DeviceCheck's errors (`DCError`, a struct with a `Code` enum, domain
/// `com.apple.devicecheck.error`). Raw values as in `DCError.h`.
public struct DCError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Int, Sendable, Hashable {
        /// A failure has occurred, such as the failure to generate a token.
        case unknownSystemFailure = 0
        /// DeviceCheck is unavailable on this device.
        case featureUnsupported = 1
        /// The app provided data that isn't formatted correctly.
        case invalidInput = 2
        /// A failed attempt to use the App Attest key.
        case invalidKey = 3
        /// A failed attempt to contact the App Attest service during an attestation.
        case serverUnavailable = 4
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static let errorDomain = "com.apple.devicecheck.error"
    public static var unknownSystemFailure: Code { .unknownSystemFailure }
    public static var featureUnsupported: Code { .featureUnsupported }
    public static var invalidInput: Code { .invalidInput }
    public static var invalidKey: Code { .invalidKey }
    public static var serverUnavailable: Code { .serverUnavailable }

    public var description: String { "DCError(\(code))" }
}

/// What stands behind `DCAppAttestService` on a device: the Secure Enclave that makes and uses the key, and Apple's
/// attestation servers. A test supplies one to play the device (`DCAppAttestService.withScript`).
public protocol DCAppAttestServiceScript: Sendable {
    /// `DCAppAttestService.isSupported`.
    var isSupported: Bool { get }
    /// `generateKey()`: a new key's identifier (base64 of SHA-256 of its public key, on a device).
    func generateKey() async throws -> String
    /// `attestKey(_:clientDataHash:)`: the CBOR attestation object Apple's servers return.
    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data
    /// `generateAssertion(_:clientDataHash:)`: the CBOR map `{signature, authenticatorData}`.
    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data
}

/// A device without App Attest (a simulator, a Mac without the Secure Enclave): `isSupported` is false and every
/// call fails with `DCError.featureUnsupported`, as DeviceCheck documents.
public struct UnsupportedAppAttestDevice: DCAppAttestServiceScript {
    public init() {}
    public var isSupported: Bool { false }
    public func generateKey() async throws -> String { throw DCError(.featureUnsupported) }
    public func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data { throw DCError(.featureUnsupported) }
    public func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        throw DCError(.featureUnsupported)
    }
}

/// Mirrors DeviceCheck `DCAppAttestService` (iOS 14, macOS 11, tvOS 15, watchOS 9): the App Attest service. `shared`
/// answers from the script of the innermost `withScript` (an unsupported device outside one), so parallel tests
/// each play their own device.
open class DCAppAttestService: NSObject {
    @TaskLocal static var script: any DCAppAttestServiceScript = UnsupportedAppAttestDevice()

    let script: any DCAppAttestServiceScript

    init(script: any DCAppAttestServiceScript) {
        self.script = script
        super.init()
    }

    /// Runs `body` with `DCAppAttestService.shared` answering from `script`.
    public static func withScript<T>(
        _ script: any DCAppAttestServiceScript, _ body: () async throws -> T
    ) async rethrows -> T {
        try await $script.withValue(script, operation: body)
    }

    /// `DCAppAttestService.shared`: the service of the current script.
    open class var shared: DCAppAttestService { DCAppAttestService(script: script) }

    /// `isSupported`: whether this device offers App Attest.
    open var isSupported: Bool { script.isSupported }

    /// `generateKey(completionHandler:)`.
    open func generateKey(completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
        let script = self.script
        Task {
            do {
                completionHandler(try await script.generateKey(), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    /// `generateKey()`, the async form Swift imports from `generateKey(completionHandler:)`.
    open func generateKey() async throws -> String { try await script.generateKey() }

    /// `attestKey(_:clientDataHash:completionHandler:)`.
    open func attestKey(
        _ keyId: String, clientDataHash: Data, completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
    ) {
        let script = self.script
        Task {
            do {
                completionHandler(try await script.attestKey(keyId, clientDataHash: clientDataHash), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    /// `attestKey(_:clientDataHash:)`, the async form.
    open func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try await script.attestKey(keyId, clientDataHash: clientDataHash)
    }

    /// `generateAssertion(_:clientDataHash:completionHandler:)`.
    open func generateAssertion(
        _ keyId: String, clientDataHash: Data, completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
    ) {
        let script = self.script
        Task {
            do {
                completionHandler(try await script.generateAssertion(keyId, clientDataHash: clientDataHash), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    /// `generateAssertion(_:clientDataHash:)`, the async form.
    open func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try await script.generateAssertion(keyId, clientDataHash: clientDataHash)
    }
}
#endif
