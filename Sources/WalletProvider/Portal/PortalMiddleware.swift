import ServiceSupport
import Vapor

/// Wraps every portal route: errors become HTML pages (the API's `WireErrorMiddleware` further out never sees them,
/// so it keeps answering JSON for the API), and every answer — pages, redirects, errors — gets the portal's
/// security headers.
struct PortalMiddleware: AsyncMiddleware {
    /// No script, no plug-in, no external fetch: images only as `data:` (the QR code), inline style, forms only to
    /// the provider itself, never framed (CSP Level 3 §6).
    static let contentSecurityPolicy =
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response: Response
        do {
            response = try await next.respond(to: request)
        } catch let error as WireError {
            response = MessageView.error(error)
        } catch let abort as any AbortError {
            // Vapor's own (a body over the limit, a malformed request): its status, a generic text.
            response = MessageView.error(WireError(abort.status, "invalid_request", abort.status.reasonPhrase))
        } catch {
            request.logger.error("portal: unhandled error \(String(reflecting: type(of: error)))")
            response = MessageView.error(.server)
        }
        // Nothing of the portal may be stored by a browser or a proxy: pages show instance ids, the TOTP secret.
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        response.headers.replaceOrAdd(name: "Content-Security-Policy", value: Self.contentSecurityPolicy)
        response.headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        return response
    }
}
