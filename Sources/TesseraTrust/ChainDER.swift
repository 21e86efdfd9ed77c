import Foundation
import X509

/// A chain as received (DER, leaf first), parsed once for every kind of validation (ISO 18013-5 Annex B paths,
/// JOSE `x5c`): either every certificate, or the outcome that reports each one that does not parse (with the leaf
/// when it at least parses, for a caller that displays it).
enum ChainDER {
    enum Parsed {
        case success([Certificate])
        case failure(ChainValidationOutcome)
    }

    static func parse(_ chainDER: [Data]) -> Parsed {
        guard !chainDER.isEmpty else { return .failure(ChainValidationOutcome(failures: [.emptyChain])) }
        var chain: [Certificate] = []
        chain.reserveCapacity(chainDER.count)
        var failures: [TrustError] = []
        for (index, der) in chainDER.enumerated() {
            do {
                chain.append(try Certificate(derEncoded: Array(der)))
            } catch {
                failures.append(.malformedCertificate(certificate: index, reason: String(describing: error)))
            }
        }
        guard failures.isEmpty else {
            let leaf = chainDER.first.flatMap { try? Certificate(derEncoded: Array($0)) }
            return .failure(ChainValidationOutcome(failures: failures, leaf: leaf))
        }
        return .success(chain)
    }
}
