import Foundation
import OpenID4VP
import TesseraJOSE
import TesseraTestSupport
import Testing
import WalletInstanceKit
import WalletProvider
import TesseraHTTP

/// The web portal over real HTTP on loopback, driven like a browser without script: a cookie jar, forms posted as
/// `application/x-www-form-urlencoded`, redirects looked at rather than followed.
@Suite(.serialized)
struct PortalTests {
    static let password = "correct horse battery staple"
    static let csp = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"

    @Test(arguments: ProviderDatabases.all)
    func signUpShowsTheSecretAndItsQRCodeAndTheFirstCodeLogsIn(database: String) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let browser = PortalBrowser(fixture)

        let root = try await browser.get("/portal")
        #expect(root.status == 303)
        #expect(root.location == "/portal/login")

        let form = try await browser.get("/portal/signup")
        #expect(form.status == 200)
        #expect(form.header("Content-Type") == "text/html; charset=utf-8")
        let preLogin = try #require(form.setCookie("tessera_prelogin"))
        #expect(preLogin.contains("HttpOnly") && preLogin.contains("SameSite=Strict") && preLogin.contains("Path=/portal"))
        #expect(!preLogin.contains("Secure"), "the fixture's base URL is http")

        // The form's own checks: repeated password, password length.
        let email = "enrol-\(UUID().uuidString.prefix(8))@example.org"
        let differ = try await browser.post("/portal/signup", ["email": email, "password": Self.password, "password_repeat": Self.password + "!"], csrfFrom: form)
        #expect(differ.status == 400)
        #expect(differ.message == "The two passwords differ.")
        #expect(differ.setCookie("tessera_enrolment") == nil)
        let short = try await browser.post("/portal/signup", ["email": email, "password": "short", "password_repeat": "short"], csrfFrom: form)
        #expect(short.status == 400)
        #expect(short.message?.contains("12 to 256 characters") == true)

        let created = try await browser.post("/portal/signup", ["email": email, "password": Self.password, "password_repeat": Self.password], csrfFrom: form)
        #expect(created.status == 303)
        #expect(created.location == "/portal/enrol")
        let ticket = try #require(browser.cookies["tessera_enrolment"])
        // The same e-mail address again is refused.
        let again = try await browser.post("/portal/signup", ["email": email, "password": Self.password, "password_repeat": Self.password], csrfFrom: form)
        #expect(again.status == 400)

        let enrolment = try await browser.get("/portal/enrol")
        #expect(enrolment.status == 200)
        let secret = try #require(enrolment.elementText(id: "totp-secret"))
        #expect(secret.count == 32, "20 random bytes in Base32")
        let totp = try #require(TOTP(base32Secret: secret))
        // The QR code is a PNG data: URI; zxing-cpp reads the otpauth URI with the same secret back from it.
        let src = try #require(enrolment.attribute("src", ofElementWithID: "qr"))
        #expect(src.hasPrefix("data:image/png;base64,"))
        let png = try #require(Data(base64Encoded: String(src.dropFirst("data:image/png;base64,".count))))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let uri = try ZXing.decode(png)
        #expect(uri.hasPrefix("otpauth://totp/"))
        #expect(uri.contains("secret=\(secret)&"))
        #expect(uri.contains("issuer=Tessera%20Wallet%20Provider"))

        // A wrong first code: the page again, with its QR code, and no session.
        let wrong = try await browser.post("/portal/enrol", ["totp": Self.otherCode(than: totp, at: fixture.clock.now())], csrfFrom: enrolment)
        #expect(wrong.status == 401)
        #expect(wrong.message?.contains("not valid") == true)
        #expect(wrong.attribute("src", ofElementWithID: "qr")?.hasPrefix("data:image/png;base64,") == true)
        #expect(browser.cookies["tessera_session"] == nil)

        let confirmed = try await browser.post("/portal/enrol", ["totp": totp.code(at: fixture.clock.now())], csrfFrom: enrolment)
        #expect(confirmed.status == 303)
        #expect(confirmed.location == "/portal/instances")
        let sessionCookie = try #require(confirmed.setCookie("tessera_session"))
        #expect(sessionCookie.contains("HttpOnly") && sessionCookie.contains("SameSite=Strict") && sessionCookie.contains("Path=/portal"))
        #expect(browser.cookies["tessera_enrolment"] == nil, "the ticket is cleared")

        // The secret is never shown again, not even to the old ticket.
        browser.cookies["tessera_enrolment"] = ticket
        let over = try await browser.get("/portal/enrol")
        #expect(over.status == 303)
        #expect(over.location == "/portal/login")
        #expect(!over.body.contains(secret))

        let list = try await browser.get("/portal/instances")
        #expect(list.status == 200)
        #expect(list.elementText(id: "account-email") == email)
        #expect(list.element(id: "no-instances") != nil)
        // The cookie holds the account API's session token.
        let token = try #require(browser.cookies["tessera_session"])
        #expect(try await fixture.request(.get, "/api/wallet-instances", session: token).status == 200)
    }

    @Test func loginNeedsBothFactorsAndSetsAStrictHttpOnlyCookie() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let (browser, totp, email) = try await Self.enrolledBrowser(fixture)
        let oldToken = try #require(browser.cookies["tessera_session"])
        let list = try await browser.get("/portal/instances")
        let out = try await browser.post("/portal/logout", [:], csrfFrom: list)
        #expect(out.status == 303)
        #expect(out.location == "/portal/login")
        #expect(out.setCookie("tessera_session")?.contains("Max-Age=0") == true)
        #expect(browser.cookies["tessera_session"] == nil)
        #expect(try await fixture.request(.get, "/api/wallet-instances", session: oldToken).status == 401)
        #expect(try await browser.get("/portal/instances").location == "/portal/login")

        fixture.clock.set(fixture.clock.now().addingTimeInterval(30))
        let form = try await browser.get("/portal/login")
        #expect(form.status == 200)
        let now = fixture.clock.now()
        let attempts: [[String: String]] = [
            ["email": email, "password": Self.password, "totp": Self.otherCode(than: totp, at: now)],  // wrong code
            ["email": email, "password": "wrong password!!", "totp": totp.code(at: now)],  // wrong password
            ["email": "nobody@example.org", "password": Self.password, "totp": totp.code(at: now)],  // no such account
        ]
        for fields in attempts {
            let refused = try await browser.post("/portal/login", fields, csrfFrom: form)
            #expect(refused.status == 401)
            #expect(refused.message == "The e-mail address, password or code is wrong.")
            #expect(refused.setCookie("tessera_session") == nil)
        }
        #expect(browser.cookies["tessera_session"] == nil)

        let ok = try await browser.post("/portal/login", ["email": email, "password": Self.password, "totp": totp.code(at: now)], csrfFrom: form)
        #expect(ok.status == 303)
        #expect(ok.location == "/portal/instances")
        let cookie = try #require(ok.setCookie("tessera_session"))
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Strict"))
        #expect(cookie.contains("Path=/portal"))
        #expect(cookie.contains("Max-Age=3600"))
        #expect(!cookie.contains("Secure"))
        let token = try #require(browser.cookies["tessera_session"])
        #expect(token != oldToken)
        // Logged in, the login page sends the browser to its instances.
        #expect(try await browser.get("/portal/login").location == "/portal/instances")
        #expect(try await browser.get("/portal").location == "/portal/instances")
    }

    @Test func theListShowsARegisteredInstanceAndItsRevokeButtonRevokesIt() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let (browser, _, _) = try await Self.enrolledBrowser(fixture)
        let wallet = fixture.wallet()
        let activated = try await wallet.activate(provider: fixture.server.baseURL, session: try #require(browser.cookies["tessera_session"]))
        let id = try #require(activated.instanceID)

        let list = try await browser.get("/portal/instances")
        let row = try #require(list.instanceRow(id))
        #expect(row.contains("data-status=\"valid\""))
        #expect(row.contains("data-pid-status=\"none\""))
        #expect(row.contains("<td>android</td>"))
        #expect(row.contains(Self.utcMinute(fixture.clock.now())))
        #expect(row.contains("action=\"/portal/instances/\(id)/revoke\""))

        let revoked = try await browser.post("/portal/instances/\(id)/revoke", [:], csrfFrom: list)
        #expect(revoked.status == 303)
        #expect(revoked.location == "/portal/instances")
        let after = try #require(try await browser.get("/portal/instances").instanceRow(id))
        #expect(after.contains("data-status=\"revoked\""))
        #expect(!after.contains("/revoke\""), "no Revoke button for a revoked instance")
        await #expect(throws: WalletInstanceError.instanceRevoked) { try await wallet.reissue() }

        // Revoking again: no valid instance, an HTML 404 with the portal's headers.
        let twice = try await browser.post("/portal/instances/\(id)/revoke", [:], csrfFrom: list)
        #expect(twice.status == 404)
        #expect(twice.header("Content-Type") == "text/html; charset=utf-8")
        #expect(twice.header("Content-Security-Policy") == Self.csp)
    }

    @Test func aPostWithoutOrWithAWrongCSRFTokenIsRefused() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let (browser, totp, email) = try await Self.enrolledBrowser(fixture)
        let token = try #require(browser.cookies["tessera_session"])
        let id = try #require(try await fixture.wallet().activate(provider: fixture.server.baseURL, session: token).instanceID)
        let (other, _, _) = try await Self.enrolledBrowser(fixture)
        let othersToken = try #require(try await other.get("/portal/instances").csrf)

        // Logged-in forms: missing, wrong, and another session's token.
        for csrf in [nil, "wrong", othersToken] {
            let fields: [String: String] = csrf.map { ["csrf": $0] } ?? [:]
            for path in ["/portal/instances/\(id)/revoke", "/portal/logout", "/portal/account/purge"] {
                var body = fields
                if path.hasSuffix("purge") { body["confirm_email"] = email }
                let answer = try await browser.post(path, body)
                #expect(answer.status == 403, "\(path) with csrf \(csrf ?? "(none)")")
                #expect(answer.message?.contains("CSRF") == true)
                #expect(answer.header("Content-Type") == "text/html; charset=utf-8")
            }
        }
        // Nothing happened: the instance is valid, the session open, the account there.
        let status = try await fixture.request(.get, "/api/wallet-instances/\(id)", session: token)
        #expect(status.json?["status"]?.stringValue == "valid")
        #expect(try await browser.get("/portal/instances").status == 200)
        // A session cookie alone, without the form's token, is not enough; the token without the cookie neither.
        let stranger = PortalBrowser(fixture)
        let noCookie = try await stranger.post("/portal/logout", ["csrf": try #require(try await browser.get("/portal/instances").csrf)])
        #expect(noCookie.status == 403)

        // Pre-login forms: the double-submit pair must match and come from this server.
        fixture.clock.set(fixture.clock.now().addingTimeInterval(30))
        let fields = ["email": email, "password": Self.password, "totp": totp.code(at: fixture.clock.now())]
        let fresh = PortalBrowser(fixture)
        let form = try await fresh.get("/portal/login")
        let field = try #require(form.csrf)
        #expect(try await fresh.post("/portal/login", fields).status == 403)  // no field
        #expect(try await fresh.post("/portal/login", fields.merging(["csrf": field + "x"]) { $1 }).status == 403)  // altered
        let otherBrowser = PortalBrowser(fixture)
        _ = try await otherBrowser.get("/portal/login")
        #expect(try await otherBrowser.post("/portal/login", fields.merging(["csrf": field]) { $1 }).status == 403)  // other cookie
        let cookieless = PortalBrowser(fixture)
        #expect(try await cookieless.post("/portal/login", fields.merging(["csrf": field]) { $1 }).status == 403)  // no cookie
        for browser in [fresh, otherBrowser, cookieless] { #expect(browser.cookies["tessera_session"] == nil) }
        // The right pair logs in (the refusals above did not count as failed logins of the account).
        let ok = try await fresh.post("/portal/login", fields.merging(["csrf": field]) { $1 })
        #expect(ok.status == 303)

        // A body that is not a form: an HTML 400, not the API's JSON.
        let json = try await fresh.send(.post, "/portal/login", body: Data("{}".utf8), contentType: "application/json")
        #expect(json.status == 400)
        #expect(json.header("Content-Type") == "text/html; charset=utf-8")
    }

    @Test func purgeAsksForTheEmailAndRemovesTheAccount() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let (browser, totp, email) = try await Self.enrolledBrowser(fixture)
        let token = try #require(browser.cookies["tessera_session"])
        _ = try await fixture.wallet().activate(provider: fixture.server.baseURL, session: token)

        let list = try await browser.get("/portal/instances")
        let wrong = try await browser.post("/portal/account/purge", ["confirm_email": "someone-else@example.org"], csrfFrom: list)
        #expect(wrong.status == 400)
        #expect(wrong.message?.contains("e-mail address exactly") == true)
        #expect(try await fixture.request(.get, "/api/wallet-instances", session: token).json?["wallet_instances"]?.arrayValue?.count == 1)

        let purged = try await browser.post("/portal/account/purge", ["confirm_email": email], csrfFrom: list)
        #expect(purged.status == 200)
        #expect(purged.body.contains("Account deleted"))
        #expect(browser.cookies["tessera_session"] == nil)
        #expect(try await fixture.request(.get, "/api/wallet-instances", session: token).status == 401)
        #expect(try await browser.get("/portal/instances").location == "/portal/login")

        fixture.clock.set(fixture.clock.now().addingTimeInterval(30))
        let form = try await browser.get("/portal/login")
        let login = try await browser.post("/portal/login", ["email": email, "password": Self.password, "totp": totp.code(at: fixture.clock.now())], csrfFrom: form)
        #expect(login.status == 401)
        #expect(login.message == "The e-mail address, password or code is wrong.")
        // The address is free again.
        let again = try await fixture.request(.post, "/api/accounts", json: ["email": .string(email), "password": .string(Self.password)])
        #expect(again.status == 201)
    }

    @Test func fiveFailedLoginsLockTheAccountFor15Minutes() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let (browser, totp, email) = try await Self.enrolledBrowser(fixture)
        _ = try await browser.post("/portal/logout", [:], csrfFrom: try await browser.get("/portal/instances"))
        let form = try await browser.get("/portal/login")
        for _ in 0..<5 {
            let wrong = try await browser.post(
                "/portal/login", ["email": email, "password": Self.password, "totp": Self.otherCode(than: totp, at: fixture.clock.now())],
                csrfFrom: form)
            #expect(wrong.status == 401)
        }
        fixture.clock.set(fixture.clock.now().addingTimeInterval(60))
        let right = ["email": email, "password": Self.password, "totp": totp.code(at: fixture.clock.now())]
        let locked = try await browser.post("/portal/login", right, csrfFrom: form)
        #expect(locked.status == 429)
        #expect(locked.message?.contains("locked for 15 minutes") == true)
        #expect(locked.header("Content-Security-Policy") == Self.csp)
        #expect(browser.cookies["tessera_session"] == nil)

        fixture.clock.set(fixture.clock.now().addingTimeInterval(16 * 60))
        let form2 = try await browser.get("/portal/login")
        let unlocked = try await browser.post(
            "/portal/login", ["email": email, "password": Self.password, "totp": totp.code(at: fixture.clock.now())], csrfFrom: form2)
        #expect(unlocked.status == 303)
        #expect(browser.cookies["tessera_session"] != nil)
    }

    @Test func wrongEnrolmentCodesCountTowardsTheLockout() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let browser = PortalBrowser(fixture)
        let email = "guess-\(UUID().uuidString.prefix(8))@example.org"
        let form = try await browser.get("/portal/signup")
        _ = try await browser.post("/portal/signup", ["email": email, "password": Self.password, "password_repeat": Self.password], csrfFrom: form)
        let page = try await browser.get("/portal/enrol")
        let shownSecret = try #require(page.elementText(id: "totp-secret"))
        let totp = try #require(TOTP(base32Secret: shownSecret))
        for _ in 0..<5 {
            #expect(try await browser.post("/portal/enrol", ["totp": Self.otherCode(than: totp, at: fixture.clock.now())], csrfFrom: page).status == 401)
        }
        let locked = try await browser.post("/portal/enrol", ["totp": totp.code(at: fixture.clock.now())], csrfFrom: page)
        #expect(locked.status == 429)
        #expect(browser.cookies["tessera_session"] == nil)
    }

    @Test func everyValueIsEscapedAndEveryAnswerCarriesTheHeaders() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let email = "<b>\"x'&</b>\(UUID().uuidString.prefix(4))@example.org"
        let (browser, _, _) = try await Self.enrolledBrowser(fixture, email: email)
        let list = try await browser.get("/portal/instances")
        #expect(!list.body.contains("<b>"))
        #expect(list.body.contains("&lt;b&gt;&quot;x&#39;&amp;&lt;/b&gt;"))
        #expect(list.elementText(id: "account-email") == "&lt;b&gt;&quot;x&#39;&amp;&lt;/b&gt;" + email.dropFirst("<b>\"x'&</b>".count))

        let answers = [
            list, try await browser.get("/portal/no/such/page"), try await browser.post("/portal/no/such/page", [:]),
            try await PortalBrowser(fixture).get("/portal/login"), try await PortalBrowser(fixture).get("/portal"),
        ]
        for answer in answers {
            #expect(answer.header("Cache-Control") == "no-store")
            #expect(answer.header("Content-Security-Policy") == Self.csp)
            #expect(answer.header("X-Content-Type-Options") == "nosniff")
        }
        #expect(answers[1].status == 404 && answers[2].status == 404)
        #expect(answers[1].header("Content-Type") == "text/html; charset=utf-8")
        #expect(!list.body.contains("<script"))
        // The API keeps its JSON errors.
        #expect(try await fixture.request(.get, "/api/no-such").error == "not_found")
    }

    // MARK: Helpers

    /// A browser that signed up and confirmed its enrolment (so it is logged in), the TOTP and the e-mail address.
    /// The clock moves on 30 s afterwards, so that the next login has a fresh TOTP step.
    static func enrolledBrowser(
        _ fixture: ProviderFixture, email: String = "user-\(UUID().uuidString.prefix(8))@example.org"
    ) async throws -> (PortalBrowser, TOTP, String) {
        let browser = PortalBrowser(fixture)
        let form = try await browser.get("/portal/signup")
        let created = try await browser.post("/portal/signup", ["email": email, "password": password, "password_repeat": password], csrfFrom: form)
        guard created.status == 303 else { throw FixtureError("sign-up: \(created.status) \(created.message ?? "")") }
        let page = try await browser.get("/portal/enrol")
        guard let secret = page.elementText(id: "totp-secret"), let totp = TOTP(base32Secret: secret) else {
            throw FixtureError("no TOTP secret on the enrolment page: \(page.status)")
        }
        let confirmed = try await browser.post("/portal/enrol", ["totp": totp.code(at: fixture.clock.now())], csrfFrom: page)
        guard confirmed.status == 303 else { throw FixtureError("enrolment: \(confirmed.status) \(confirmed.message ?? "")") }
        fixture.clock.set(fixture.clock.now().addingTimeInterval(30))
        return (browser, totp, email)
    }

    /// A six-digit code that matches no step of the ±1 window.
    static func otherCode(than totp: TOTP, at instant: Date) -> String {
        let valid = Set((-1...1).map { totp.code(at: instant.addingTimeInterval(Double($0) * 30)) })
        var candidate = 0
        while valid.contains(String(format: "%06d", candidate)) { candidate += 1 }
        return String(format: "%06d", candidate)
    }

    static func utcMinute(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}

/// A cookie jar over the fixture's HTTP client (which never follows redirects).
final class PortalBrowser: @unchecked Sendable {
    let fixture: ProviderFixture
    var cookies: [String: String] = [:]

    init(_ fixture: ProviderFixture) { self.fixture = fixture }

    func get(_ path: String) async throws -> PortalPage { try await send(.get, path) }

    /// Posts the form fields, with `csrf` copied from the page's form unless `fields` has one.
    func post(_ path: String, _ fields: [String: String], csrfFrom page: PortalPage? = nil) async throws -> PortalPage {
        var pairs = fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if fields["csrf"] == nil, let csrf = page?.csrf { pairs.append(("csrf", csrf)) }
        return try await send(.post, path, body: Data(FormURLEncoding.encode(pairs).utf8), contentType: "application/x-www-form-urlencoded")
    }

    func send(_ method: HTTPRequest.Method, _ path: String, body: Data? = nil, contentType: String? = nil) async throws -> PortalPage {
        guard let url = URL(string: fixture.server.baseURL + path) else { throw FixtureError("bad path \(path)") }
        var headers: [(name: String, value: String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        if !cookies.isEmpty { headers.append(("Cookie", cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))) }
        let response = try await fixture.http.send(HTTPRequest(method: method, url: url, headers: headers, body: body))
        let page = PortalPage(status: response.status, headers: response.headers, body: String(decoding: response.body, as: UTF8.self))
        for header in page.headers where header.name.lowercased() == "set-cookie" {
            let pair = (header.value.split(separator: ";", maxSplits: 1).first ?? "").split(separator: "=", maxSplits: 1)
            guard let name = pair.first.map(String.init) else { continue }
            let value = pair.count > 1 ? String(pair[1]) : ""
            if value.isEmpty || header.value.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        return page
    }
}

struct PortalPage {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: String

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    var location: String? { header("Location") }

    func setCookie(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == "set-cookie" && $0.value.hasPrefix(name + "=") }?.value
    }

    /// The first hidden `csrf` field of the page.
    var csrf: String? { value(after: "name=\"csrf\" value=\"") }
    /// The markup inside `#message` (as sent: escaped).
    var message: String? { elementText(id: "message") }

    func element(id: String) -> Substring? {
        guard let start = body.range(of: "id=\"\(id)\"") else { return nil }
        return body[start.lowerBound...]
    }

    /// The content of the element with this id up to its closing tag.
    func elementText(id: String) -> String? {
        guard let rest = element(id: id), let open = rest.firstIndex(of: ">"), let close = rest[open...].range(of: "</") else { return nil }
        return String(rest[rest.index(after: open)..<close.lowerBound])
    }

    func attribute(_ name: String, ofElementWithID id: String) -> String? {
        guard let tagStart = body.range(of: "id=\"\(id)\"") else { return nil }
        let tagOpen = body[..<tagStart.lowerBound].lastIndex(of: "<") ?? tagStart.lowerBound
        guard let tagEnd = body[tagStart.upperBound...].firstIndex(of: ">") else { return nil }
        let tag = body[tagOpen..<tagEnd]
        guard let valueStart = tag.range(of: " \(name)=\"") else { return nil }
        let rest = tag[valueStart.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// The `<tr>` of an instance.
    func instanceRow(_ id: String) -> String? {
        guard let start = body.range(of: "data-instance-id=\"\(id)\""), let end = body[start.upperBound...].range(of: "</tr>") else { return nil }
        return String(body[start.lowerBound..<end.upperBound])
    }

    private func value(after marker: String) -> String? {
        guard let start = body.range(of: marker), let end = body[start.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(body[start.upperBound..<end])
    }
}

/// Decodes a PNG QR code with zxing-cpp (the Python peer of TesseraQRTests).
enum ZXing {
    static func decode(_ png: Data) throws -> String {
        let python = try #require(PythonPeer.interpreter, Comment(rawValue: PythonPeer.missingMessage))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("portal-qr-\(UUID().uuidString).png")
        try png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import sys, zxingcpp
            from PIL import Image
            found = [r.text for r in zxingcpp.read_barcodes(Image.open(sys.argv[1])) if r.format == zxingcpp.BarcodeFormat.QRCode]
            print(found[0] if len(found) == 1 else "")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError("zxing peer exited \(process.terminationStatus)") }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
