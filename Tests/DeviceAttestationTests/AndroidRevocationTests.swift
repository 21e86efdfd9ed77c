import DeviceAttestation
import Foundation
import TesseraJOSE
import Testing

/// The revocation list compares serial numbers as integers.
@Suite struct AndroidRevocationTests {
    /// The io-wallet sample with its mock status list (none of the chain's serials listed).
    func ioWallet() throws -> AndroidVectorTests.Sample {
        try #require(try AndroidVectorTests.samples().first { $0.id == "android-pagopa-io-wallet-strongbox-2024" })
    }

    @Test func theMockStatusListRevokesNothingInTheChain() throws {
        let sample = try ioWallet()
        #expect(sample.revocationList.count == 2)
        #expect(sample.revocationList.contains(serialHex: "9703144777339823906"))  // listed as 0970…
        #expect(sample.revocationList.contains(serialHex: "C8966FCB2FBB0D7A"))
        let outcome = AndroidKeyAttestationVerifier(policy: sample.policy(.strict))
            .verify(chain: sample.chain, challenge: sample.challenge, at: sample.instant)
        #expect(outcome.isValid)
    }

    @Test(arguments: ["15905857467176635834", "0015905857467176635834", "15905857467176635834".uppercased()])
    func aListedIntermediateSerialRevokesTheChain(serial: String) throws {
        let sample = try ioWallet()
        var policy = sample.policy(.strict)
        policy.revocationList = try AndroidRevocationList(serials: ["c8966fcb2fbb0d7a", serial])
        let outcome = AndroidKeyAttestationVerifier(policy: policy)
            .verify(chain: sample.chain, challenge: sample.challenge, at: sample.instant)
        #expect(outcome.failures == [.revoked])
    }

    @Test func serialsCompareAsIntegers() throws {
        let list = try AndroidRevocationList(serials: ["00ab", "0", "1"])
        #expect(list.contains(serial: Data([0x00, 0xAB])))
        #expect(list.contains(serial: Data([0xAB])))
        #expect(list.contains(serialHex: "AB"))
        #expect(list.contains(serial: Data([0x00])))
        #expect(list.contains(serialHex: "0001"))
        #expect(!list.contains(serial: Data([0xAB, 0x00])))
        #expect(!list.contains(serialHex: "ac"))
        #expect(!list.contains(serialHex: "not hex"))
        #expect(!AndroidRevocationList.empty.contains(serialHex: "1"))
    }

    @Test func googleStatusFormatIsRead() throws {
        let json = Data(#"{"entries":{"2c8cdddfd5e03bfc":{"status":"REVOKED","expires":"2020-11-13","reason":"KEY_COMPROMISE"},"0A":{"status":"SUSPENDED"}}}"#.utf8)
        let list = try AndroidRevocationList(statusJSON: json)
        #expect(list.contains(serialHex: "2C8CDDDFD5E03BFC"))
        #expect(list.contains(serial: Data([0x0A])))
    }

    @Test func badListsAreRefused() {
        #expect(throws: DeviceAttestationError.self) { try AndroidRevocationList(serials: ["12g4"]) }
        #expect(throws: DeviceAttestationError.self) { try AndroidRevocationList(serials: [""]) }
        #expect(throws: DeviceAttestationError.self) { try AndroidRevocationList(serials: ["0x12"]) }
        for text in ["", "[]", #"{"entries":[]}"#, #"{"entries":{"zz":{}}}"#, #"{"other":{}}"#] {
            #expect(throws: DeviceAttestationError.self, "\(text)") { try AndroidRevocationList(statusJSON: Data(text.utf8)) }
        }
    }
}
