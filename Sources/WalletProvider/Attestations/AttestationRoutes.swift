import ITWalletProtocol
import ServiceSupport
import TesseraJOSE
import Vapor

/// The 1.3 and 1.5 attestation endpoints: Wallet Instance Attestation and Key Attestation, each at the path its
/// version (and the production backend) uses, answering with the member that version names; then the routes that
/// keep what they issue current (the PID Provider's "Notify User Death").
struct AttestationRoutes: Sendable {
    let box: ServicesBox
    var provider: ProviderServices { get throws(WireError) { try box.get() } }

    func register(on routes: any RoutesBuilder) {
        let size = ByteCount(value: AttestationRequestBody.maxBytes)
        for version in [ITWalletVersion.v1_3, .v1_5] {
            routes.on(.POST, Self.path(ITWalletEndpoint.attestation(version)), body: .collect(maxSize: size)) { request async throws -> Response in
                let jwt = try await provider.attestations.service.walletInstanceAttestation(
                    assertion: try AttestationRequestBody.assertion(of: request, .jsonOrCompact), version: version)
                return JSONBody.response(["wallet_instance_attestation": .string(jwt)])
            }
        }
        // 1.3: io-wallet serves the same Key Attestation at `/key-attestations` and, by its earlier name, at
        // `/wallet-unit-attestations`; 1.5 at `/key-attestation`.
        let keyAttestations: [(path: String, version: ITWalletVersion, member: String)] = [
            (ITWalletEndpoint.keyAttestation(.v1_3) ?? "", .v1_3, "key_attestation"),
            (ITWalletEndpoint.walletUnitAttestations, .v1_3, "wallet_unit_attestation"),
            (ITWalletEndpoint.keyAttestation(.v1_5) ?? "", .v1_5, "key_attestation"),
        ]
        for endpoint in keyAttestations {
            routes.on(.POST, Self.path(endpoint.path), body: .collect(maxSize: size)) { request async throws -> Response in
                let jwt = try await provider.attestations.service.keyAttestation(
                    assertion: try AttestationRequestBody.assertion(of: request, .jsonOrCompact), version: endpoint.version)
                return JSONBody.response([endpoint.member: .string(jwt)])
            }
        }
        UserDeathRoutes(box: box).register(on: routes)
    }

    /// `"/a/b"` as route components.
    static func path(_ path: String) -> [PathComponent] {
        path.split(separator: "/").map { PathComponent(stringLiteral: String($0)) }
    }
}
