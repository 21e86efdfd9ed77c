import Vapor

/// Log in with both factors at once: e-mail, password and the current TOTP code.
enum LoginView {
    /// The one text for every refused login: it never says which factor was wrong, or whether the account exists.
    static let refused = "The e-mail address, password or code is wrong."

    static func form(
        csrf: String, email: String = "", error: String? = nil, notice: String? = nil, status: HTTPResponseStatus = .ok
    ) -> Response {
        PortalLayout.page(status, title: "Log in", """
            \(PortalLayout.message(error))\(PortalLayout.message(notice, kind: "notice"))
            <form id="login-form" method="post" action="/portal/login">
            \(PortalLayout.csrfField(csrf))
            <label for="email">E-mail address</label>
            <input id="email" name="email" type="email" required maxlength="254" autocomplete="username" value="\(email)">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" required maxlength="256" autocomplete="current-password">
            <label for="totp">Authenticator code</label>
            <input id="totp" name="totp" type="text" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code">
            <button id="login-button" type="submit">Log in</button>
            </form>
            <p>No account yet? <a href="/portal/signup">Sign up</a></p>
            """)
    }

    /// 429 after `AccountService.failureLimit` failures in a row.
    static func locked() -> Response {
        let minutes = Int(AccountService.lockout / 60)
        return PortalLayout.page(.tooManyRequests, title: "Account locked", """
            \(PortalLayout.message("Too many failed attempts: this account is locked for \(minutes) minutes. Try again later."))
            <p><a href="/portal/login">Back to the login</a></p>
            """)
    }
}
