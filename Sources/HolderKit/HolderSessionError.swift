import Foundation
import MDoc
import ProximitySession
import ProximityTransport

/// Why a holder session failed. Cases name the rule broken; none carries key material.
public enum HolderSessionError: ProximitySessionFailure, Equatable {
    /// The transition is not in the table (`HolderSessionState.allowedTransitions`), or the state is terminal.
    case invalidTransition(from: HolderSessionState.Phase, to: HolderSessionState.Phase)
    /// A gated mutator was called outside the one state that allows it (decision 3 of ARCHITECTURE.md).
    case mutatorNotAllowed(property: String, in: HolderSessionState.Phase)
    /// A sealed property was written twice; the session is invalidated, a retry needs a new session.
    case sealedPropertyRewritten(property: String)
    /// `startPresentation` while another presentation is running.
    case presentationInProgress
    /// The DeviceEngagement or its QR code could not be built.
    case engagementFailed(String)
    /// The transport failed (link lost, protocol violation …).
    case transport(TransportError)
    /// SessionEstablishment could not be decrypted (§9.1.1.4: answered with status 10).
    case sessionEncryption
    /// SessionEstablishment or DeviceRequest is not valid CBOR / CDDL (§9.1.1.4: answered with status 11).
    case invalidRequest(MDocError)
    /// The reader ended the session (SessionData status 20 or the BLE State End) before the response.
    case readerTerminated
    /// The DeviceResponse could not be generated or encrypted.
    case responseGeneration(MDocError)
    /// The device key refused to sign (e.g. user authentication on a secure element failed).
    case deviceKey(String)
}
