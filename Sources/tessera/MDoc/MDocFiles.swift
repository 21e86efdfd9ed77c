import Crypto
import Foundation
import MDoc
import TesseraCBOR
import TesseraCOSE
import TesseraTrust
import X509
import TesseraTrustTesting

/// Reading and writing the files the mdoc commands exchange.
enum MDocFiles {
    static func read(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else { throw UserFacingError("cannot read \(path)") }
        guard data.count <= InputBytes.limit else { throw UserFacingError("\(path) is larger than \(InputBytes.limit) bytes") }
        return data
    }

    static func readText(_ path: String) throws -> String {
        String(decoding: try read(path), as: UTF8.self)
    }

    /// Writes `data`; private keys are readable by the owner only.
    static func write(_ data: Data, to path: String, secret: Bool = false) throws {
        let url = URL(fileURLWithPath: path)
        do {
            try data.write(to: url, options: .atomic)
            if secret { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
        } catch {
            throw UserFacingError("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// A P-256 public key from a PEM file holding a public key (SPKI) or a private key.
    static func devicePublicKey(_ path: String) throws -> COSEKey {
        let pem = try readText(path)
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) { return COSEKey(key) }
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) { return COSEKey(key.publicKey) }
        throw UserFacingError("\(path): not a P-256 public or private key in PEM")
    }

    static func devicePrivateKey(_ path: String) throws -> P256.Signing.PrivateKey {
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: try readText(path))
        } catch let error as UserFacingError {
            throw error
        } catch {
            throw UserFacingError("\(path): not a P-256 private key in PEM (PKCS#8 or SEC 1)")
        }
    }

    /// All certificates of a PEM file, as DER, in file order.
    static func certificates(_ path: String) throws -> [Data] {
        do {
            let anchors = try TrustAnchors(pemBundle: try readText(path))
            return try anchors.certificates.map { try CertificatePEM.der($0) }
        } catch let error as UserFacingError {
            throw error
        } catch {
            throw UserFacingError("\(path): \(error)")
        }
    }

    static func trustAnchors(_ path: String) throws -> TrustAnchors {
        do {
            return try TrustAnchors(pemBundle: try readText(path))
        } catch let error as UserFacingError {
            throw error
        } catch {
            throw UserFacingError("\(path): \(error)")
        }
    }

    /// `--at` and `--valid-from`/`--valid-until`: RFC 3339 / ISO 8601 date-time, or a date (midnight UTC).
    static func instant(_ text: String, option: String) throws -> Date {
        if let d = try? TDate(string: text) { return d.date }
        if let d = try? FullDate(string: text) {
            var c = DateComponents()
            c.year = d.year
            c.month = d.month
            c.day = d.day
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            if let date = calendar.date(from: c) { return date }
        }
        throw UserFacingError("\(option): \"\(text)\" is not an ISO 8601 date-time (e.g. 2025-01-01T00:00:00Z) or date")
    }

    /// The transcript given with `--transcript` (SessionTranscript or SessionTranscriptBytes CBOR),
    /// or the documented default one.
    static func transcript(_ path: String?) throws -> SessionTranscript {
        guard let path else { return defaultTranscript }
        let data = try read(path)
        do {
            if let t = try? SessionTranscript(taggedBytes: data) { return t }
            return try SessionTranscript(bytes: data)
        } catch {
            throw UserFacingError("\(path): not a SessionTranscript: \(error)")
        }
    }

    /// The transcript `respond` and `verify` use when none is given: `[null, null, "tessera-cli-default"]`.
    /// It binds nothing to a session; it only lets a file-based response be checked end to end.
    static let defaultTranscript = SessionTranscript(
        deviceEngagementBytes: nil, eReaderKeyBytes: nil, handover: .other(.text("tessera-cli-default")))
}
