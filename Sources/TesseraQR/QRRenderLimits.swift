/// Bounds applied to the renderers' layout parameters, so that no argument can overflow an image size.
enum QRRenderLimits {
    /// Pixels (PNG) or user units (SVG) per module: 1...64.
    static func scale(_ value: Int) -> Int { min(max(value, 1), 64) }
    /// Light modules around the symbol: 0...64. ISO/IEC 18004:2015 §6.3.8 asks for 4.
    static func quietZone(_ value: Int) -> Int { min(max(value, 0), 64) }
}
