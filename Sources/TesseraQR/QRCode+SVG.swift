extension QRCode {
    /// The symbol as a standalone SVG document: a light background and one `<path>` holding every dark
    /// module (one rectangle per horizontal run), drawn with `shape-rendering="crispEdges"`.
    ///
    /// The view box is in modules (symbol plus quiet zone); `width`/`height` are `scale` units per module.
    /// - Parameters:
    ///   - scale: user units per module, clamped to 1...64.
    ///   - quietZone: light modules on each side, clamped to 0...64 (ISO/IEC 18004:2015 §6.3.8 asks for 4).
    public func svgString(scale: Int = 8, quietZone: Int = 4) -> String {
        let unit = QRRenderLimits.scale(scale)
        let quiet = QRRenderLimits.quietZone(quietZone)
        let side = size + 2 * quiet
        let pixels = side * unit
        // The path is written as UTF-8 bytes with hand-formatted numbers: no string per run.
        var path: [UInt8] = []
        path.reserveCapacity(size * size * 2)
        func append(_ value: Int) {
            if value >= 10 { append(value / 10) }
            path.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                var run = 1
                while isDark(x: x + run, y: y) { run += 1 }
                path.append(UInt8(ascii: "M"))
                append(x + quiet)
                path.append(UInt8(ascii: " "))
                append(y + quiet)
                path.append(UInt8(ascii: "h"))
                append(run)
                path.append(contentsOf: "v1h-".utf8)
                append(run)
                path.append(UInt8(ascii: "z"))
                x += run
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixels)" height="\(pixels)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/>\
            <path fill="#000" d="\(String(decoding: path, as: UTF8.self))"/></svg>

            """
    }
}
