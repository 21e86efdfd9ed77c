import TokenStatusList

extension SDJWTError {
    /// The SDJWT case for a TokenStatusList error, with its reason: the `status` claim (TSL §6), the Status List
    /// Token (TSL §5, §8.3), the index (TSL §8.3) or the list itself (TSL §4).
    public init(_ error: StatusListError) {
        switch error {
        case .indexOutOfRange(let index, let count):
            self = .statusIndexOutOfRange(index: index, count: count)
        case .malformedReference:
            self = .statusClaimMalformed(error.reason)
        case .tokenTooLarge, .malformedToken, .wrongType, .missingClaim, .invalidClaim, .signatureInvalid,
            .certificateChainInvalid, .subjectMismatch, .expired, .issuedInFuture, .signingFailed:
            self = .statusListTokenInvalid(error.reason)
        case .unsupportedBits, .invalidCount, .emptyList, .statusTooWide, .malformedStatusList, .invalidCompression,
            .listTooLarge:
            self = .statusListMalformed(error.reason)
        }
    }
}
