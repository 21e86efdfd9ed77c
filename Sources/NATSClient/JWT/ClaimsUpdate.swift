import Foundation

extension NATSClient {
    /// Pushes an account JWT to the server's full (directory) resolver the way `nsc push` does: a request on
    /// `$SYS.REQ.CLAIMS.UPDATE` with the JWT as payload, sent by a user of the system account. The resolver answers
    /// `{"data":{"code":200,"message":…}}` on success or `{"error":{"code":…,"description":…}}`; the error is thrown
    /// as `claimsUpdateRejected`. Returns the server's message.
    public func pushAccountJWT(_ jwt: String, timeout: Duration = .seconds(5)) async throws -> String {
        let reply = try await request(Data(jwt.utf8), to: "$SYS.REQ.CLAIMS.UPDATE", timeout: timeout)
        struct Body: Decodable { var code: Int?; var message: String?; var description: String? }
        struct Response: Decodable { var data: Body?; var error: Body? }
        guard let response = try? JSONDecoder().decode(Response.self, from: reply.payload) else {
            throw NATSError.claimsUpdateRejected(code: 0, description: "unreadable answer from the resolver")
        }
        if let error = response.error {
            throw NATSError.claimsUpdateRejected(code: error.code ?? 0, description: error.description ?? "")
        }
        guard let data = response.data, (data.code ?? 200) == 200 else {
            throw NATSError.claimsUpdateRejected(code: response.data?.code ?? 0, description: response.data?.message ?? "")
        }
        return data.message ?? ""
    }
}
