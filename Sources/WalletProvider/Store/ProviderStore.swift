import ServiceSupport

/// The provider's stores share ServiceSupport's SQL access (503 on database failure, one transaction per request).
typealias ProviderSQL = ServiceSQL
