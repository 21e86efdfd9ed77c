import Testing
import TesseraCore

@testable import TesseraQR

@Suite("GF(256) and Reed–Solomon (ISO/IEC 18004 §7.5.2, Annex A)")
struct ReedSolomonTests {
    @Test("α powers follow the field polynomial 0x11D")
    func fieldTables() {
        #expect(GaloisField.exp[0] == 1)
        #expect(GaloisField.exp[7] == 0x80)
        #expect(GaloisField.exp[8] == 0x1D)  // x^8 = x^4 + x^3 + x^2 + 1
        #expect(GaloisField.exp[25] == 0x03)
        #expect(GaloisField.exp[255] == 1)  // α has order 255
        // Every non-zero element appears exactly once among α^0 … α^254.
        #expect(Set(GaloisField.exp[0..<255]).count == 255)
        #expect(!GaloisField.exp[0..<255].contains(0))
        for a in 1...255 {
            #expect(GaloisField.exp[Int(GaloisField.log[a])] == UInt8(a))
        }
        #expect(GaloisField.multiply(0x53, 0xCA) == GaloisField.exp[Int(GaloisField.log[0x53]) + Int(GaloisField.log[0xCA])])
        #expect(GaloisField.multiply(0, 0x57) == 0)
    }

    /// Annex A lists each generator polynomial as exponents of α, highest degree first.
    @Test("Generator polynomials of Annex A")
    func generatorPolynomials() {
        #expect(ReedSolomon(degree: 7).generatorExponents == [0, 87, 229, 146, 149, 238, 102, 21])
        #expect(ReedSolomon(degree: 10).generatorExponents == [0, 251, 67, 46, 61, 118, 70, 64, 94, 32, 45])
        #expect(
            ReedSolomon(degree: 13).generatorExponents
                == [0, 74, 152, 176, 100, 86, 100, 106, 104, 130, 218, 206, 140, 78])
        #expect(
            ReedSolomon(degree: 17).generatorExponents
                == [0, 43, 139, 206, 78, 43, 239, 123, 206, 214, 147, 24, 99, 150, 39, 243, 163, 136])
    }

    /// ISO/IEC 18004:2015 Annex I (worked example, 1-M): the 16 data codewords and the 10 error correction
    /// codewords it derives from them. Reed–Solomon works on codewords, whatever mode made them.
    @Test("Annex I worked example, 1-M error correction codewords")
    func annexIWorkedExample() {
        let data: [UInt8] = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
        ]
        let ecc = ReedSolomon(degree: 10).remainder(of: data)
        #expect(ecc == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    /// A codeword c(x) = d(x)·x^n + r(x) is a multiple of g(x), so it vanishes at every root α^0 … α^(n−1).
    @Test("Codewords vanish at the generator's roots", arguments: [7, 10, 18, 22, 26, 30])
    func syndromesAreZero(degree: Int) {
        let random = SeededRandomSource(seed: UInt64(degree))
        let data = [UInt8](random.bytes(40 + degree))
        let codeword = data + ReedSolomon(degree: degree).remainder(of: data)
        for root in 0..<degree {
            var value: UInt8 = 0
            for c in codeword {  // Horner, highest degree first
                value = GaloisField.multiply(value, GaloisField.exp[root]) ^ c
            }
            #expect(value == 0, "syndrome \(root) of degree \(degree)")
        }
        // A single changed codeword breaks it.
        var corrupted = codeword
        corrupted[3] ^= 0x40
        var syndrome: UInt8 = 0
        for c in corrupted { syndrome = GaloisField.multiply(syndrome, GaloisField.exp[1]) ^ c }
        #expect(syndrome != 0)
    }
}
