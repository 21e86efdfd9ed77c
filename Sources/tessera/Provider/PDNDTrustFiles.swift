import Foundation
import TesseraJOSE
import TesseraTrust
import WalletProvider
import X509

/// `--pdnd-trust FILE` (repeatable): each file is either PEM certificates — trust anchors for an `x5c` header (a
/// PDND voucher signed under a CA) — or JSON, a JWK or a JWK Set — keys for JWTs that name theirs by `kid` (PDND's
/// voucher key, the PID Provider's client key).
enum PDNDTrustFiles {
    static func trust(_ paths: [String]) throws -> PDNDTrust? {
        guard !paths.isEmpty else { return nil }
        var trust = PDNDTrust()
        for path in paths {
            let text = try MDocFiles.readText(path)
            if text.contains("-----BEGIN CERTIFICATE-----") {
                do {
                    trust.roots += try TrustAnchors(pemBundle: text).certificates
                } catch {
                    throw UserFacingError("--pdnd-trust: \(path): \(error)")
                }
                continue
            }
            guard let object = (try? JSONValue.parse(Data(text.utf8)))?.objectValue else {
                throw UserFacingError("--pdnd-trust: \(path) is neither PEM certificates nor a JWK / JWK Set")
            }
            let members = object["keys"]?.arrayValue?.compactMap(\.objectValue) ?? [object]
            for member in members {
                guard let key = try? JWK(json: member), !key.isPrivate else {
                    throw UserFacingError("--pdnd-trust: \(path) holds a value that is not a public JWK")
                }
                trust.keys.append(key)
            }
        }
        return trust
    }
}
