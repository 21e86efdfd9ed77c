import Foundation
import Vapor

/// The account's Wallet Instances (IT-Wallet: id, platform, status, PID status, creation), with a Revoke button
/// per valid instance, log out, and the account purge that asks for the e-mail address as confirmation.
enum InstancesView {
    static func page(
        email: String, instances: [WalletInstanceRow], csrf: String, error: String? = nil, status: HTTPResponseStatus = .ok
    ) -> Response {
        let rows = instances.map { row(for: $0, csrf: csrf) }
        let table: HTML = instances.isEmpty
            ? "<p id=\"no-instances\">No wallet instance is registered for this account yet.</p>"
            : """
                <table id="instances">
                <thead><tr><th>Instance</th><th>Platform</th><th>Status</th><th>PID</th><th>Created (UTC)</th><th></th></tr></thead>
                <tbody>\(rows)</tbody>
                </table>
                """
        return PortalLayout.page(status, title: "Your wallet instances", """
            <nav><span>Logged in as <strong id="account-email">\(email)</strong></span>
            <form id="logout-form" method="post" action="/portal/logout">\(PortalLayout.csrfField(csrf))<button id="logout-button" type="submit">Log out</button></form></nav>
            \(PortalLayout.message(error))
            \(table)
            <section>
            <h2>Delete the account</h2>
            <p>This revokes and deletes every wallet instance of the account, its sessions and the account itself.
            Type your e-mail address to confirm.</p>
            <form id="purge-form" method="post" action="/portal/account/purge">
            \(PortalLayout.csrfField(csrf))
            <label for="confirm-email">E-mail address</label>
            <input id="confirm-email" name="confirm_email" type="text" required maxlength="254" autocomplete="off">
            <button id="purge-button" class="danger" type="submit">Delete account</button>
            </form>
            </section>
            """)
    }

    private static func row(for instance: WalletInstanceRow, csrf: String) -> HTML {
        let action: HTML
        if instance.status == InstanceStatus.valid.rawValue {
            action = """
                <form method="post" action="/portal/instances/\(pathSegment(instance.id))/revoke">\(PortalLayout.csrfField(csrf))\
                <button class="danger revoke-button" type="submit">Revoke</button></form>
                """
        } else {
            action = ""
        }
        let created = date(instance.created_at)
        var revoked: HTML = ""
        if let at = instance.revoked_at { revoked = "<br><small>revoked \(date(at))</small>" }
        return """
            <tr class="instance" data-instance-id="\(instance.id)" data-status="\(instance.status)" data-pid-status="\(instance.pid_status)">\
            <td><code>\(instance.id)</code></td><td>\(instance.platform)</td>\
            <td class="status-\(instance.status)">\(instance.status)</td><td>\(instance.pid_status)</td>\
            <td>\(created)\(revoked)</td><td>\(action)</td></tr>

            """
    }

    /// `2025-01-31 12:00`: seconds since 1970 in UTC.
    static func date(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// An instance id in a URL path (ids are base64url; any other character is percent-encoded).
    static func pathSegment(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
}
