import Foundation
import MDoc

/// The holder's document and session cryptography, behind a protocol so that a platform can use a secure
/// element (the device key is already behind `DeviceKeySigner`). The calls run on the orchestrator's
/// isolation (`nonisolated(nonsending)`), so they may read and update the session it passes in.
public protocol CryptoService: Sendable {
    /// Generates EDeviceKey, builds the DeviceEngagement, its `mdoc:` URI and QR code, and stores them in
    /// the session (`setEngagement`, so only while it is `notStarted`).
    nonisolated(nonsending) func prepareEngagement(in session: HolderSession) async throws(HolderSessionError)

    /// Reads the reader's SessionEstablishment (§9.1.1.4): derives the session keys from EReaderKey and the
    /// SessionTranscript, stores them in the session, and returns the decrypted DeviceRequest.
    nonisolated(nonsending) func processSessionEstablishment(incoming: Data, in session: HolderSession) async throws(HolderSessionError)
        -> DeviceRequest

    /// Builds the DeviceResponse for the consented items (DeviceSigned with the credential's device key),
    /// and returns it encrypted as SessionData bytes, with status 20 (session termination, §9.1.1.4) when
    /// `terminate` is true.
    nonisolated(nonsending) func generateDeviceSigned(items: ConsentSelection, in session: HolderSession, terminate: Bool)
        async throws(HolderSessionError) -> Data
}
