import ServiceSupport
import Vapor

/// Pages that only say something: errors (403 CSRF, 404, 429 lockout, 5xx) and the farewell after a purge.
enum MessageView {
    /// An error as a page with its status. A `WireError`'s description never carries a secret (ServiceSupport);
    /// server errors say nothing of their cause.
    static func error(_ error: WireError) -> Response {
        let text = error.status.code >= 500 ? "The request could not be handled. Please try again later." : error.description
        return PortalLayout.page(error.status, title: title(for: error.status), """
            \(PortalLayout.message(text))
            <p><a href="/portal/login">Log in</a> · <a href="/portal/signup">Sign up</a></p>
            """)
    }

    static func title(for status: HTTPResponseStatus) -> String {
        switch status {
        case .forbidden: return "Request refused"
        case .notFound: return "Not found"
        case .tooManyRequests: return "Account locked"
        case .payloadTooLarge: return "Request too large"
        default: return status.code >= 500 ? "Something went wrong" : "Request not accepted"
        }
    }

    static func purged(email: String) -> Response {
        PortalLayout.page(title: "Account deleted", """
            \(PortalLayout.message("The account \(email), its sessions and its wallet instances were deleted.", kind: "notice"))
            <p><a href="/portal/signup">Create a new account</a></p>
            """)
    }
}
