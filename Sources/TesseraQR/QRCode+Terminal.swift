extension QRCode {
    /// The symbol as text for a terminal, two module rows per line with Unicode half blocks
    /// (▀ upper, ▄ lower, █ both, space neither), each line ending in a newline.
    ///
    /// - Parameters:
    ///   - quietZone: light modules around the symbol, clamped to 0...64 (ISO/IEC 18004:2015 §6.3.8
    ///     asks for 4; 2 usually scans on screen).
    ///   - inverted: `false` draws the dark modules as glyphs (for a light terminal background); `true`
    ///     draws the light modules and the quiet zone instead (for a dark background), so that the code
    ///     still shows dark on light.
    /// - Returns: `(size + 2·quietZone + 1) / 2` lines of `size + 2·quietZone` characters.
    public func terminalString(quietZone: Int = 2, inverted: Bool = false) -> String {
        let quiet = QRRenderLimits.quietZone(quietZone)
        let side = size + 2 * quiet
        let lines = (side + 1) / 2
        var utf8: [UInt8] = []
        utf8.reserveCapacity(lines * (side * 3 + 1))
        // A pixel of the text image is painted when it lies inside the image and has the drawn colour.
        func painted(_ x: Int, _ y: Int) -> Bool {
            guard y < side else { return false }
            return isDark(x: x - quiet, y: y - quiet) != inverted
        }
        for line in 0..<lines {
            let top = 2 * line
            for x in 0..<side {
                // █ U+2588, ▀ U+2580, ▄ U+2584 share the UTF-8 prefix E2 96.
                let last: UInt8
                switch (painted(x, top), painted(x, top + 1)) {
                case (true, true): last = 0x88
                case (true, false): last = 0x80
                case (false, true): last = 0x84
                case (false, false):
                    utf8.append(0x20)
                    continue
                }
                utf8.append(0xE2)
                utf8.append(0x96)
                utf8.append(last)
            }
            utf8.append(0x0A)
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}
