import ArgumentParser
import ServiceSupport

/// `--tls-cert` / `--tls-key` of the services: HTTPS on the service's own socket (its base URL becomes https).
struct ServeTLSOptions: ParsableArguments {
    @Option(name: .customLong("tls-cert"), help: "Serve HTTPS with this certificate chain (PEM, leaf first).")
    var certificate: String?
    @Option(name: .customLong("tls-key"), help: "The private key (PEM) of --tls-cert.")
    var key: String?

    func validate() throws {
        guard (certificate == nil) == (key == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
    }

    var tls: ServiceTLS? {
        guard let certificate, let key else { return nil }
        return ServiceTLS(certificateChainPath: certificate, privateKeyPath: key)
    }
}
