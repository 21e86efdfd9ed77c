/// Reed–Solomon error correction codewords (ISO/IEC 18004:2015 §7.5.2, generator polynomials in Annex A).
struct ReedSolomon {
    /// Coefficients of the generator polynomial g(x) = (x − α^0)(x − α^1)…(x − α^(n−1)), highest degree
    /// first without the leading 1: `generator[0]` multiplies x^(n−1), `generator[n−1]` is the constant term.
    let generator: [UInt8]

    /// The generator of degree `requested` (the error correction codewords per block, 7...30; kept in 1...254).
    init(degree requested: Int) {
        let degree = min(max(requested, 1), 254)
        // Start from g(x) = 1 and multiply by (x + α^i) for each root; over GF(2^8) minus is plus.
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                coefficients[j] = GaloisField.multiply(coefficients[j], root)
                if j + 1 < degree { coefficients[j] ^= coefficients[j + 1] }
            }
            root = GaloisField.multiply(root, 2)
        }
        generator = coefficients
    }

    /// Exponents of α for the coefficients of g(x), highest degree first including the leading α^0,
    /// the form Annex A lists them in.
    var generatorExponents: [Int] { [0] + generator.map { Int(GaloisField.log[Int($0)]) } }

    /// The remainder of data(x)·x^n divided by g(x): the n error correction codewords of one block,
    /// written into `output` (which must hold n bytes).
    func remainder(of data: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) {
        let n = generator.count
        for i in 0..<n { output[i] = 0 }
        generator.withUnsafeBufferPointer { g in
            for byte in data {
                let factor = byte ^ output[0]
                // Shift the register left by one codeword.
                for i in 0..<(n - 1) { output[i] = output[i + 1] }
                output[n - 1] = 0
                if factor != 0 {
                    let logFactor = Int(GaloisField.log[Int(factor)])
                    for i in 0..<n where g[i] != 0 {
                        output[i] ^= GaloisField.exp[logFactor + Int(GaloisField.log[Int(g[i])])]
                    }
                }
            }
        }
    }

    /// Convenience for tests and small inputs: the error correction codewords of `data`.
    func remainder(of data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: generator.count)
        data.withUnsafeBufferPointer { d in
            out.withUnsafeMutableBufferPointer { o in remainder(of: d, into: o) }
        }
        return out
    }
}
