import Foundation

/// Delivers the text of a scanned QR code (the `mdoc:` engagement URI).
public protocol CameraService: Sendable {
    /// Waits for one scan and returns its text, trimmed; a camera that cannot deliver throws ``VerifierSessionError/camera(_:)``.
    func scan() async throws(VerifierSessionError) -> String
}

/// The Linux "camera": the engagement comes from a command-line argument, a file, or standard input
/// (one line), so two terminals or a script can hand it over.
public struct TextCamera: CameraService {
    /// Where the engagement text comes from.
    public enum Source: Sendable, Equatable {
        /// The text itself (a command-line argument).
        case text(String)
        /// A file holding the text (at most ``TextCamera/maximumLength`` bytes).
        case file(URL)
        /// One line of standard input.
        case standardInput
    }

    /// Longest input read: the engagement URI limit of `MDocQRCode` plus a newline.
    public static let maximumLength = 4097
    /// Where ``scan()`` reads from.
    public let source: Source

    /// A camera reading from `source`.
    public init(_ source: Source) { self.source = source }

    /// Reads the engagement from ``source``, refusing anything longer than ``maximumLength``.
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

    /// A camera with nothing shown yet; only the newest shown text is kept.
    public init() { (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1)) }

    /// Puts `text` in front of the camera: the next ``scan()`` returns it.
    public func show(_ text: String) { continuation.yield(text) }

    /// Waits until something is shown and returns it.
    public func scan() async throws(VerifierSessionError) -> String {
        for await text in stream { return text }
        throw .camera("the camera was closed")
    }
}
