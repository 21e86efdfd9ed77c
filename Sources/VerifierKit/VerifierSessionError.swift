import Foundation
import MDoc
import ProximitySession
import ProximityTransport

/// Why a verification failed. Cases name the rule broken.
public enum VerifierSessionError: ProximitySessionFailure, Equatable {
    /// The transition is not in `VerifierSessionState.allowedTransitions`, or the state is terminal.
    case invalidTransition(from: VerifierSessionState.Phase, to: VerifierSessionState.Phase)
    /// A gated mutator was called outside the one state that allows it.
    case mutatorNotAllowed(property: String, in: VerifierSessionState.Phase)
    /// A sealed property was written twice; the session is invalidated.
    case sealedPropertyRewritten(property: String)
    /// `startVerification` while another verification is running.
    case verificationInProgress
    /// The camera could not deliver a scan.
    case camera(String)
    /// The scanned text is not an `mdoc:` device engagement (§8.2.2.3), or it offers no BLE method we support.
    case invalidFormat(String)
    /// The transport failed (no such service, Ident mismatch, link lost, protocol violation …).
    case transport(TransportError)
    /// The holder ended the session without a response (SessionData status 20 alone: denied or cancelled).
    case holderTerminated
    /// The holder reported an error status (§9.1.1.4: 10 session encryption, 11 CBOR decoding).
    case holderReportedError(status: UInt64)
    /// The holder's SessionData did not decrypt.
    case sessionEncryption
    /// The SessionData or DeviceResponse is not well formed.
    case invalidResponse(MDocError)
    /// The DeviceResponse did not verify; every failure is listed.
    case verificationFailed([MDocError])
    /// The request could not be built or signed (ReaderAuth).
    case requestFailed(MDocError)
}
