import TesseraHTTP

extension OpenID4VPError {
    /// An HTTP exchange that produced no response, as this module names it.
    init(_ error: HTTPError) {
        switch error {
        case .transport(let reason): self = .httpTransport(reason)
        case .responseTooLarge(let limit): self = .httpResponseTooLarge(limit: limit)
        }
    }

    /// A query or form body that does not decode (RFC 6749 Appendix B, §3.1).
    init(_ error: FormURLEncodingError) {
        switch error {
        case .duplicateParameter(let name): self = .duplicateParameter(name)
        case .malformedParameters(let reason): self = .malformedParameters(reason)
        }
    }
}

extension WalletConfiguration {
    /// Sends through the injected client; a failed exchange becomes this module's error.
    func send(_ request: HTTPRequest) async throws(OpenID4VPError) -> HTTPResponse {
        do {
            return try await httpClient.send(request)
        } catch {
            throw OpenID4VPError(error)
        }
    }
}

extension FormURLEncoding {
    /// `decode` with this module's errors.
    static func parameters(_ text: some StringProtocol) throws(OpenID4VPError) -> [(name: String, value: String)] {
        do {
            return try decode(text)
        } catch {
            throw OpenID4VPError(error)
        }
    }
}
