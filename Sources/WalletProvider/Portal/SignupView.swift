import Foundation
import ServiceSupport
import TesseraQR
import Vapor

/// Sign-up (e-mail, password twice) and the TOTP enrolment page that follows it.
enum SignupView {
    static func form(csrf: String, email: String = "", error: String? = nil, status: HTTPResponseStatus = .ok) -> Response {
        PortalLayout.page(status, title: "Create an account", """
            \(PortalLayout.message(error))
            <form id="signup-form" method="post" action="/portal/signup">
            \(PortalLayout.csrfField(csrf))
            <label for="email">E-mail address</label>
            <input id="email" name="email" type="email" required maxlength="254" autocomplete="username" value="\(email)">
            <label for="password">Password (12 to 256 characters)</label>
            <input id="password" name="password" type="password" required minlength="12" maxlength="256" autocomplete="new-password">
            <label for="password-repeat">Password again</label>
            <input id="password-repeat" name="password_repeat" type="password" required minlength="12" maxlength="256" autocomplete="new-password">
            <button id="signup-button" type="submit">Create account</button>
            </form>
            <p>Already registered? <a href="/portal/login">Log in</a></p>
            """)
    }

    /// The secret in Base32 (for typing) and the `otpauth://` URI as a QR code (for scanning), then the form that
    /// takes the first code. The QR code is a PNG `data:` URI, the only image source the CSP allows.
    static func enrolment(
        _ pending: AccountService.PendingEnrolment, csrf: String, error: String? = nil, status: HTTPResponseStatus = .ok
    ) throws(WireError) -> Response {
        let qr: QRCode
        do {
            qr = try QRCode.encode(pending.provisioningURI, level: .medium)
        } catch {
            throw .server
        }
        let (scale, quietZone) = (6, 4)
        let png = qr.pngData(scale: scale, quietZone: quietZone)
        let secret = pending.secretBase32
        return PortalLayout.page(status, title: "Set up your authenticator", """
            \(PortalLayout.message(error))
            <p>Your account <strong id="account-email">\(pending.email)</strong> needs a second factor. Scan this code with an
            authenticator app (RFC 6238 TOTP: SHA-1, 6 digits, 30 seconds), or type the secret into it.</p>
            <p><img id="qr" alt="QR code of the otpauth URI for \(pending.email)" width="\((qr.size + 2 * quietZone) * scale)" \
            src="data:image/png;base64,\(png.base64EncodedString())"></p>
            <p>Secret: <code id="totp-secret" class="secret">\(secret)</code></p>
            <form id="enrol-form" method="post" action="/portal/enrol">
            \(PortalLayout.csrfField(csrf))
            <label for="totp">The code your app shows now</label>
            <input id="totp" name="totp" type="text" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code">
            <button id="enrol-button" type="submit">Confirm</button>
            </form>
            <p>The secret is shown only until a first code is confirmed.</p>
            """)
    }
}
