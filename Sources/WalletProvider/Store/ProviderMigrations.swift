import Fluent

/// Every migration of the provider, in order.
enum ProviderMigrations {
    static var all: [any Migration] {
        [CreateProviderSchema(), CreateStatusListSchema(), CreatePDNDReplaySchema(), AddInstanceRevocationReason()]
    }
}
