/// The module grid while a symbol is built: one byte per module (1 dark, 0 light), row-major, and a parallel
/// grid marking the function modules that data placement and masking leave alone (ISO/IEC 18004:2015 §6.3).
struct QRMatrix {
    let size: Int
    var modules: [UInt8]
    /// 1 where the module belongs to a function pattern or to the format/version information.
    private(set) var isFunction: [UInt8]

    /// A grid with every function pattern of `version` drawn and the format information area reserved
    /// (filled in later by `drawFormatInformation`, once the mask is known).
    init(version: Int) {
        size = QRVersionTable.size(version)
        modules = [UInt8](repeating: 0, count: size * size)
        isFunction = [UInt8](repeating: 0, count: size * size)
        drawTimingPatterns()
        drawFinderPattern(x: 0, y: 0)
        drawFinderPattern(x: size - 7, y: 0)
        drawFinderPattern(x: 0, y: size - 7)
        drawAlignmentPatterns(version: version)
        reserveFormatInformation()
        if version >= 7 { drawVersionInformation(version: version) }
    }

    private mutating func set(_ x: Int, _ y: Int, dark: Bool) {
        modules[y * size + x] = dark ? 1 : 0
        isFunction[y * size + x] = 1
    }

    /// §6.3.5: row 6 and column 6 alternate dark and light between the finders, dark on even indices.
    private mutating func drawTimingPatterns() {
        for i in 0..<size {
            set(6, i, dark: i % 2 == 0)
            set(i, 6, dark: i % 2 == 0)
        }
    }

    /// §6.3.3, §6.3.4: a 7×7 finder (3×3 dark core, light ring, dark ring) with its one-module light separator,
    /// clipped to the symbol. (x, y) is the finder's top-left module.
    private mutating func drawFinderPattern(x: Int, y: Int) {
        for dy in -1...7 {
            for dx in -1...7 {
                let px = x + dx
                let py = y + dy
                guard px >= 0, px < size, py >= 0, py < size else { continue }
                let ring = max(abs(dx - 3), abs(dy - 3))  // 0 centre … 3 outer ring, 4 separator
                set(px, py, dark: ring != 2 && ring != 4)
            }
        }
    }

    /// §6.3.6: 5×5 alignment patterns centred on every pair of Annex E positions except the three corners
    /// taken by finder patterns.
    private mutating func drawAlignmentPatterns(version: Int) {
        let centres = QRVersionTable.alignmentCentres(version)
        guard let first = centres.first, let last = centres.last else { return }
        for cy in centres {
            for cx in centres {
                if (cx == first && cy == first) || (cx == first && cy == last) || (cx == last && cy == first) {
                    continue
                }
                for dy in -2...2 {
                    for dx in -2...2 {
                        set(cx + dx, cy + dy, dark: max(abs(dx), abs(dy)) != 1)
                    }
                }
            }
        }
    }

    /// §7.9.1: the 2 × 15 format information modules, plus the dark module at (8, 4·version + 9) (Figure 25).
    private mutating func reserveFormatInformation() {
        drawFormatInformation(0, reserving: true)
        set(8, size - 8, dark: true)
    }

    /// §7.9.1, Figure 25: the 15 format bits, bit 0 the least significant. First copy around the top-left
    /// finder (bits 0–5 down column 8, bits 6–8 at the corner, bits 9–14 leftwards along row 8); second copy
    /// split between the top-right finder (bits 0–7 along row 8) and the bottom-left one (bits 8–14 down column 8).
    /// With `reserving`, also marks the modules as function modules (done once, when the grid is made).
    mutating func drawFormatInformation(_ bits: Int, reserving: Bool = false) {
        let n = size
        Self.forEachFormatModule(size: n) { x, y, i in
            modules[y * n + x] = UInt8(bits >> i & 1)
            if reserving { isFunction[y * n + x] = 1 }
        }
    }

    /// Calls `body(x, y, i)` for each of the 30 format information modules, `i` the bit it carries.
    @inline(__always)
    static func forEachFormatModule(size n: Int, _ body: (Int, Int, Int) -> Void) {
        for i in 0..<6 { body(8, i, i) }
        body(8, 7, 6)
        body(8, 8, 7)
        body(7, 8, 8)
        for i in 9..<15 { body(14 - i, 8, i) }
        for i in 0..<8 { body(n - 1 - i, 8, i) }
        for i in 8..<15 { body(8, n - 15 + i, i) }
    }

    /// §7.10, Figure 27: two 6×3 blocks of the 18 version bits, above the bottom-left finder and left of the
    /// top-right finder; bit i sits at row/column i / 3 and column/row size − 11 + i % 3.
    private mutating func drawVersionInformation(version: Int) {
        let bits = BCHCode.versionInformation(version: version)
        for i in 0..<18 {
            let dark = bits >> i & 1 == 1
            let a = size - 11 + i % 3
            let b = i / 3
            set(a, b, dark: dark)
            set(b, a, dark: dark)
        }
    }

    /// §7.7.3: places the codeword bits (most significant first) in two-module-wide columns from the bottom
    /// right, upwards then downwards in turn, skipping function modules and the vertical timing column.
    /// Modules left over after the last codeword are remainder bits, light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        let bitCount = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        var upward = true
        let n = size
        codewords.withUnsafeBufferPointer { words in
            modules.withUnsafeMutableBufferPointer { grid in
                isFunction.withUnsafeBufferPointer { function in
                    while right >= 1 {
                        if right == 6 { right = 5 }  // the vertical timing pattern takes a whole column
                        for step in 0..<n {
                            let y = upward ? n - 1 - step : step
                            for column in 0..<2 {
                                let x = right - column
                                guard function[y * n + x] == 0 else { continue }
                                if bitIndex < bitCount {
                                    grid[y * n + x] = words[bitIndex >> 3] >> (7 - bitIndex & 7) & 1
                                    bitIndex += 1
                                } else {
                                    grid[y * n + x] = 0
                                }
                            }
                        }
                        upward.toggle()
                        right -= 2
                    }
                }
            }
        }
    }
}
