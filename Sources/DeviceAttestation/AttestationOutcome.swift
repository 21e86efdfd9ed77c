/// What a verifier found (ARCHITECTURE.md decision 2): every broken rule, in the order the rules are checked,
/// and the facts read from the input when parsing got that far.
///
/// Facts are present even when a rule failed (e.g. an unlocked bootloader), so a caller can log or display
/// what the device claimed; only `isValid` says the input may be trusted.
public struct AttestationOutcome<Facts: Sendable>: Sendable {
    public let facts: Facts?
    public let failures: [AttestationFailure]
    /// Why a structure was rejected (for `malformed` and `malformedExtension`), for logs. Never holds key material.
    public let diagnostics: [AttestationDiagnostic]

    public init(facts: Facts?, failures: [AttestationFailure], diagnostics: [AttestationDiagnostic] = []) {
        self.facts = facts
        self.failures = failures
        self.diagnostics = diagnostics
    }

    /// True when no rule failed and the input was read completely.
    public var isValid: Bool { failures.isEmpty && facts != nil }
}

/// A human-readable reason attached to a failure, e.g. which field of the KeyDescription is not DER.
public struct AttestationDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public let failure: AttestationFailure
    public let reason: String

    public init(_ failure: AttestationFailure, _ reason: String) {
        self.failure = failure
        self.reason = reason
    }

    public var description: String { "\(failure.rawValue): \(reason)" }
}
