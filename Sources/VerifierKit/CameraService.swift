import Foundation

/// Delivers the text of a scanned QR code (the `mdoc:` engagement URI).
public protocol CameraService: Sendable {
    func scan() async throws(VerifierSessionError) -> String
}

/// The Linux "camera": the engagement comes from a command-line argument, a file, or standard input
/// (one line), so two terminals or a script can hand it over.
public struct TextCamera: CameraService {
    public enum Source: Sendable, Equatable {
        case text(String)
        case file(URL)
        case standardInput
    }

    /// Longest input read: the engagement URI limit of `MDocQRCode` plus a newline.
    public static let maximumLength = 4097
    public let source: Source

    public init(_ source: Source) { self.source = source }

    public func scan() async throws(VerifierSessionError) -> String {
        let raw: String
        switch source {
        case .text(let text):
            raw = text
        case .file(let url):
            do {
                let handle = try FileHandle(forReadingFrom: url)
                defer { try? handle.close() }
                let data = try handle.read(upToCount: Self.maximumLength + 1) ?? Data()
                guard data.count <= Self.maximumLength else { throw VerifierSessionError.camera("\(url.path) is too long") }
                raw = String(decoding: data, as: UTF8.self)
            } catch let error as VerifierSessionError {
                throw error
            } catch {
                throw .camera("cannot read \(url.path)")
            }
        case .standardInput:
            guard let line = readLine(strippingNewline: true) else { throw .camera("no engagement on standard input") }
            guard line.utf8.count <= Self.maximumLength else { throw .camera("standard input line is too long") }
            raw = line
        }
        return raw.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A "camera" fed from the same process: whoever shows the QR code (an in-process holder in a demo or a
/// test) calls `show`, and the next `scan` returns it.
public final class InProcessCamera: CameraService {
    private let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    public init() { (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1)) }

    public func show(_ text: String) { continuation.yield(text) }

    public func scan() async throws(VerifierSessionError) -> String {
        for await text in stream { return text }
        throw .camera("the camera was closed")
    }
}
