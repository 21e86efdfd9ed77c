import TesseraCBOR

extension CBOR {
    /// Equality of two labels (of a COSE_Key or a header bucket) already checked to be integers or text strings:
    /// what `CBOR` equality means for them, text compared by its UTF-8 bytes, without its general path (which
    /// first looks for bignums). Anything else is not a label and equals nothing.
    func isSameLabel(as other: CBOR) -> Bool {
        switch (self, other) {
        case (.unsigned(let x), .unsigned(let y)), (.negative(let x), .negative(let y)): return x == y
        case (.text(let x), .text(let y)): return x.utf8.elementsEqual(y.utf8)
        default: return false
        }
    }
}
