import ArgumentParser
import Foundation
import TesseraCBOR

struct CBORCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cbor", abstract: "Inspect CBOR data items.", subcommands: [Diag.self])

    struct Diag: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the diagnostic notation (RFC 8949 §8) of one CBOR data item.",
            discussion: "Reads FILE, or standard input when FILE is '-' or absent, or the bytes given with --hex. "
                + "Exit status 1 with the byte offset on malformed input.")

        @Argument(help: "File holding the encoded item ('-' for standard input).")
        var file: String?

        @Option(help: "The item as hexadecimal (white space allowed).")
        var hex: String?

        @Flag(help: "Also require core deterministic encoding (RFC 8949 §4.2.1).")
        var deterministic = false

        @Flag(help: "Cut long strings and expand embedded CBOR (tag 24) for reading.")
        var abridged = false

        func run() throws {
            let bytes = try InputBytes.read(file: file, hex: hex)
            do {
                let item = try CBOR.decode(bytes, options: deterministic ? .deterministic : .strict)
                print(item.diagnostic(abridged ? .abridged : .full))
            } catch {
                throw UserFacingError("malformed CBOR: \(error)")
            }
        }
    }
}

/// Bytes from a file, standard input, or a hex argument, with a size cap.
enum InputBytes {
    static let limit = 64 << 20

    static func read(file: String?, hex: String?) throws -> Data {
        if let hex {
            guard file == nil else { throw ValidationError("give either FILE or --hex, not both") }
            return try decodeHex(hex)
        }
        let data: Data
        if file == nil || file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else if let file {
            guard let d = FileManager.default.contents(atPath: file) else {
                throw UserFacingError("cannot read \(file)")
            }
            data = d
        } else {
            data = Data()
        }
        guard data.count <= limit else { throw UserFacingError("input larger than \(limit) bytes") }
        return data
    }

    static func decodeHex(_ text: String) throws -> Data {
        var out = Data()
        var high: UInt8? = nil
        for (i, c) in text.utf8.enumerated() {
            let v: UInt8
            switch c {
            case 0x30...0x39: v = c - 0x30
            case 0x61...0x66: v = c - 0x61 + 10
            case 0x41...0x46: v = c - 0x41 + 10
            case 0x20, 0x09, 0x0a, 0x0d: continue
            default: throw UserFacingError("--hex: not a hex digit at character \(i)")
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        guard high == nil else { throw UserFacingError("--hex: odd number of hex digits") }
        return out
    }
}
