import Foundation
import Vapor

/// The frame of every portal page: one HTML document with its style inline (no external asset, no script).
enum PortalLayout {
    static let style: HTML = """
        body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
        main{max-width:52rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
        h1{font-size:1.5rem;margin-top:0}
        label{display:block;margin:.75rem 0 .25rem;font-weight:600}
        input[type=email],input[type=password],input[type=text]{width:100%;max-width:24rem;padding:.45rem;font-size:1rem;
        border:1px solid #99a;border-radius:4px;box-sizing:border-box}
        button{margin-top:1rem;padding:.5rem 1.1rem;font-size:1rem;border:0;border-radius:4px;background:#2456c7;color:#fff;cursor:pointer}
        button.danger{background:#b3261e}
        table{border-collapse:collapse;width:100%;margin:1rem 0}
        th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #dde;vertical-align:middle}
        td form button{margin:0}
        code{font-family:ui-monospace,monospace;word-break:break-all}
        .message{padding:.6rem .9rem;border-radius:4px;margin:1rem 0}
        .error{background:#fdecea;color:#8a1c12}
        .notice{background:#e8f0fe;color:#173b8f}
        .secret{font-size:1.2rem;letter-spacing:.08em}
        .status-valid{color:#1d6b32;font-weight:600}
        .status-revoked{color:#8a1c12;font-weight:600}
        nav{display:flex;gap:1rem;align-items:center;justify-content:space-between;margin-bottom:1rem}
        nav form button{margin:0}
        section{margin-top:2rem}
        """

    /// A complete `text/html` answer.
    static func page(_ status: HTTPResponseStatus = .ok, title: String, _ content: HTML) -> Response {
        let document: HTML = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · Tessera Wallet Provider</title>
            <style>\(style)</style>
            </head>
            <body>
            <main>
            <h1>\(title)</h1>
            \(content)
            </main>
            </body>
            </html>

            """
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "text/html; charset=utf-8")
        return Response(status: status, headers: headers, body: .init(string: document.markup))
    }

    /// A message box (`#message`), or nothing.
    static func message(_ text: String?, kind: String = "error") -> HTML {
        guard let text else { return "" }
        return "<p id=\"message\" class=\"message \(kind)\" role=\"alert\">\(text)</p>"
    }

    /// The hidden CSRF field of a form.
    static func csrfField(_ token: String) -> HTML {
        "<input type=\"hidden\" name=\"\(PreLoginCSRF.fieldName)\" value=\"\(token)\">"
    }

    /// `303 See Other` to a portal path (after a POST, so that reloading does not post again).
    static func redirect(_ path: String) -> Response {
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .location, value: path)
        return Response(status: .seeOther, headers: headers)
    }
}
