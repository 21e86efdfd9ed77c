import Foundation
import TesseraCore

extension Base64URL {
    /// `decode(_:)` with this module's error (RFC 7515 §2: every JOSE segment is unpadded base64url).
    @inlinable
    static func joseDecode(_ text: some StringProtocol) throws(JOSEError) -> Data {
        do {
            return try decode(text)
        } catch {
            throw .invalidBase64URL
        }
    }

    static func joseDecode(utf8 buffer: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> Data {
        do {
            return try decode(utf8: buffer)
        } catch {
            throw .invalidBase64URL
        }
    }

    static func joseWithDecoded<Result>(
        utf8 buffer: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) throws(JOSEError) -> Result {
        do {
            return try withDecoded(utf8: buffer, body)
        } catch {
            throw .invalidBase64URL
        }
    }
}
