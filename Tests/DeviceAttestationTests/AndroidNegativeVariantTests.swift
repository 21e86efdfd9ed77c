import DeviceAttestation
import Foundation
import TesseraJOSE
import Testing

/// Every `negative_variants` entry of the Android samples: one input changed, one more failure expected.
@Suite struct AndroidNegativeVariantTests {
    @Test func everyVariantAddsItsFailure() throws {
        var count = 0
        for sampleJSON in try Fixtures.android() {
            let sample = try AndroidVectorTests.Sample(sampleJSON)
            for variant in try sampleJSON.array("negative_variants") {
                let change = try variant.member("change")
                let added = try #require(AttestationFailure(rawValue: failureName(try variant.string("expected_failure"))))
                for encoding in [AndroidAttestationPolicy.Encoding.strict, .lenient] {
                    let (policy, challenge, at) = try apply(change, to: sample, encoding)
                    let outcome = AndroidKeyAttestationVerifier(policy: policy)
                        .verify(chain: sample.chain, challenge: challenge, at: at)
                    let baseline = try sample.expectedFailures(encoding).compactMap(AttestationFailure.init(rawValue:))
                    let expected = adding(added, to: baseline)
                    #expect(outcome.failures == expected, "\(sample.id) \(change) (\(encoding))")
                }
                count += 1
            }
        }
        #expect(count == 159)
    }

    /// The baseline failures plus `failure`, in rule order. A rule that reads the KeyDescription cannot fail once
    /// the extension itself is malformed (strict decoding of the non-DER boolean sample).
    private func adding(_ failure: AttestationFailure, to baseline: [AttestationFailure]) -> [AttestationFailure] {
        let order = AttestationFailure.allCases
        if baseline.contains(.malformedExtension),
            let index = order.firstIndex(of: failure), let malformed = order.firstIndex(of: .malformedExtension),
            index > malformed
        {
            return baseline
        }
        return inRuleOrder(Set(baseline + [failure]))
    }

    private func apply(
        _ change: JSONValue, to sample: AndroidVectorTests.Sample, _ encoding: AndroidAttestationPolicy.Encoding
    ) throws -> (AndroidAttestationPolicy, Data, Date) {
        var policy = sample.policy(encoding)
        var challenge = sample.challenge
        var at = sample.instant
        if let value = change["challenge_b64"]?.stringValue { challenge = try base64(value) }
        if let name = change["package_name"]?.stringValue {
            policy.applications = [
                AndroidApplication(packageName: name, signingCertificateDigests: sample.application.signingCertificateDigests)
            ]
        }
        if let digests = change["signing_cert_digests_sha256_b64"]?.arrayValue {
            policy.applications = [
                AndroidApplication(
                    packageName: sample.application.packageName,
                    signingCertificateDigests: Set(try digests.map { try base64($0.stringValue ?? "?") }))
            ]
        }
        if let ids = change["trusted_root_key_ids"]?.arrayValue {
            policy.trustedRootKeys = try ids.map { try Fixtures.googleRootKey(id: $0.stringValue ?? "?") }
        }
        if let time = change["validation_time"]?.stringValue { at = try instant(time) }
        if let serial = change["revocation_list_add_serial"]?.stringValue {
            var serials = try sample.json["revocation_list"]?.object("entries").keys ?? []
            serials.append(serial)
            policy.revocationList = try AndroidRevocationList(serials: serials)
        }
        return (policy, challenge, at)
    }
}
