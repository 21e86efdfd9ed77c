import Foundation
import TesseraCBOR

// The DeviceResponse written straight into one buffer (the holder's hot path): map keys in core deterministic
// order (§8.3.2.1, RFC 8949 §4.2.1), IssuerSignedItemBytes and DeviceNameSpacesBytes copied as held. The bytes are
// those of `cbor.encoded(options: .deterministic)`; the rare parts (documentErrors, a Document's errors) go through
// that tree.

extension DeviceResponse {
    func write(into writer: inout CBORStreamWriter) {
        if documentErrors != nil {
            writer.write(cbor)
            return
        }
        // "status" (6 letters) < "version" (7) < "documents" (9).
        writer.writeMapHead(count: documents == nil ? 2 : 3)
        writer.writeText("status")
        writer.writeUnsigned(status)
        writer.writeText("version")
        writer.writeText(version)
        if let documents {
            writer.writeText("documents")
            writer.writeArrayHead(count: documents.count)
            for document in documents { document.write(into: &writer) }
        }
    }
}

extension Document {
    func write(into writer: inout CBORStreamWriter) {
        if errors != nil {
            writer.write(cbor)
            return
        }
        // "docType" (7) < "deviceSigned" < "issuerSigned" (12 each, then bytewise).
        writer.writeMapHead(count: 3)
        writer.writeText("docType")
        writer.writeText(docType)
        writer.writeText("deviceSigned")
        // "deviceAuth" < "nameSpaces" (10 each).
        writer.writeMapHead(count: 2)
        writer.writeText("deviceAuth")
        writer.write(deviceSigned.deviceAuth.cbor)
        writer.writeText("nameSpaces")
        writer.writeTag24(deviceSigned.nameSpaces.bytes)
        writer.writeText("issuerSigned")
        issuerSigned.write(into: &writer)
    }
}

extension IssuerSigned {
    func write(into writer: inout CBORStreamWriter) {
        // "issuerAuth" < "nameSpaces" (10 each).
        writer.writeMapHead(count: nameSpaces == nil ? 1 : 2)
        writer.writeText("issuerAuth")
        writer.write(issuerAuth.cbor(tagged: false))
        guard let nameSpaces else { return }
        writer.writeText("nameSpaces")
        writer.writeMapHead(count: nameSpaces.count)
        for nameSpace in CBORStreamWriter.deterministicTextOrder(nameSpaces.keys) {
            let items = nameSpaces[nameSpace] ?? []
            writer.writeText(nameSpace)
            writer.writeArrayHead(count: items.count)
            for item in items { writer.writeTag24(item.bytes) }
        }
    }
}
