import Foundation
import TesseraCore
import TesseraJOSE
import TokenStatusList
import X509

/// Verifies SD-JWTs and SD-JWT+KB presentations: RFC 9901 §7.1 (the SD-JWT) and §7.3 (Key Binding), the SD-JWT VC
/// rules when the policy asks for them, and the Token Status List when configured.
public struct SDJWTVerifier: Sendable {
    public let policy: SDJWTVerificationPolicy
    public let clock: any TesseraClock

    public init(policy: SDJWTVerificationPolicy, clock: any TesseraClock) {
        self.policy = policy
        self.clock = clock
    }

    /// Parses (compact or JSON serialization) and verifies.
    public func verify(_ presentation: some StringProtocol) async -> SDJWTVerificationOutcome {
        let sdJWT: SDJWT
        do {
            sdJWT = try SDJWT(parsing: presentation, limits: policy.limits)
        } catch {
            return SDJWTVerificationOutcome(
                errors: [error], processedClaims: JSONObject(), keyBinding: nil, issuerCertificate: nil, status: nil,
                sdJWT: nil)
        }
        return await verify(sdJWT)
    }

    public func verify(_ sdJWT: SDJWT) async -> SDJWTVerificationOutcome {
        let now = clock.now()
        var errors: [SDJWTError] = []
        let jwt = sdJWT.issuerSignedJWT

        // VC §3.2.1: the media type.
        if let accepted = policy.acceptedTypes, !(jwt.type.map(accepted.contains) ?? false) {
            errors.append(.typeNotAccepted(jwt.type))
        }

        // §7.1 step 2: the issuer signature.
        var signatureValid = false
        var certificate: Certificate?
        do {
            certificate = try await policy.issuerKeySource.verify(
                jwt, others: sdJWT.additionalIssuerSignatures, payload: sdJWT.payload, at: now)
            signatureValid = true
        } catch {
            errors.append(error)
        }

        // §7.1 step 3–5: Disclosures.
        var claims = sdJWT.payload
        var algorithm: SDHashAlgorithm?
        do {
            algorithm = try sdJWT.hashAlgorithm()
        } catch {
            errors.append(error)
        }
        if let algorithm {
            var processor = DisclosureProcessor(
                disclosures: sdJWT.disclosures, algorithm: algorithm, maxDepth: policy.limits.maxDepth,
                checkVCClaims: policy.sdJWTVC)
            claims = processor.process(payload: sdJWT.payload)
            errors += processor.errors
        }

        // §7.1 step 6: validity.
        errors += checkValidity(claims, now: now)

        // VC §3.2.2.2.
        if policy.sdJWTVC, claims["vct"]?.stringValue == nil { errors.append(.missingVCT) }

        // §7.3: Key Binding.
        var keyBinding: SDJWTVerificationOutcome.KeyBinding?
        if let kbJWT = sdJWT.keyBindingJWT {
            keyBinding = verifyKeyBinding(
                kbJWT, sdJWT: sdJWT, claims: claims, algorithm: algorithm ?? .sha256, now: now, errors: &errors)
        } else if policy.requireKeyBinding {
            errors.append(.keyBindingRequired)
        }

        // Token Status List §8.3.
        var status: UInt8?
        if let check = policy.statusCheck {
            if let claim = claims["status"] {
                do throws(SDJWTError) {
                    let reference: StatusListReference
                    do {
                        reference = try StatusListReference(claim: claim)
                    } catch {
                        throw SDJWTError(error)
                    }
                    let value = try await check.status(
                        of: reference, keySource: policy.issuerKeySource, at: now, skew: policy.clockSkew)
                    status = value
                    if value != StatusList.valid { errors.append(.credentialStatusNotValid(value)) }
                } catch {
                    errors.append(error)
                }
            } else if check.requireStatus {
                errors.append(.statusClaimMalformed("no status claim"))
            }
        }

        return SDJWTVerificationOutcome(
            errors: errors, processedClaims: signatureValid ? claims : JSONObject(), keyBinding: keyBinding,
            issuerCertificate: certificate, status: status, sdJWT: sdJWT)
    }

    /// `ConstantTime.equal` over the two strings' UTF-8 bytes in place (no array copies).
    private static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in ConstantTime.equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) }
        }
    }

    /// `exp`, `nbf`, `iat` (RFC 7519 §4.1.4–4.1.6) with the policy's skew.
    private func checkValidity(_ claims: JSONObject, now: Date) -> [SDJWTError] {
        var errors: [SDJWTError] = []
        let t = now.timeIntervalSince1970
        let skew = policy.clockSkew
        for name in ["exp", "nbf", "iat"] {
            guard let value = claims[name] else { continue }
            guard let seconds = value.doubleValue else {
                errors.append(.invalidTimeClaim(name))
                continue
            }
            switch name {
            case "exp" where t - skew >= seconds: errors.append(.expired)
            case "nbf" where t + skew < seconds: errors.append(.notYetValid)
            case "iat" where t + skew < seconds: errors.append(.issuedInFuture)
            default: break
            }
        }
        return errors
    }

    /// §7.3 step 4.
    private func verifyKeyBinding(
        _ kbJWT: CompactJWS, sdJWT: SDJWT, claims: JSONObject, algorithm: SDHashAlgorithm, now: Date,
        errors: inout [SDJWTError]
    ) -> SDJWTVerificationOutcome.KeyBinding? {
        // Step 4.4.
        if kbJWT.type != "kb+jwt" { errors.append(.keyBindingTypeInvalid(kbJWT.type)) }

        // Step 4.1: the holder key from cnf (RFC 7800 §3.2).
        var holderKey: JWK?
        var verificationKey: JWSVerificationKey?
        if let cnf = claims["cnf"]?.objectValue, let jwkObject = cnf["jwk"]?.objectValue {
            do {
                let jwk = try JWK(json: jwkObject)
                verificationKey = try JWSVerificationKey(jwk: jwk)
                holderKey = jwk
            } catch {
                errors.append(.invalidConfirmationKey("cnf.jwk: \(error)"))
            }
        } else {
            errors.append(.invalidConfirmationKey("no cnf.jwk"))
        }

        // Steps 4.2–4.3: alg none and unknown algorithms were refused by the parser.
        var signatureValid = false
        if let verificationKey {
            do {
                try kbJWT.verify(with: verificationKey)
                signatureValid = true
            } catch {
                errors.append(.keyBindingSignatureInvalid(error))
            }
        }

        let payload: JSONObject
        do {
            payload = try kbJWT.payloadJSON()
        } catch {
            errors.append(.malformedKeyBindingJWT(error))
            return nil
        }

        // Step 4.5.
        var issuedAt: Date?
        if let iat = payload["iat"]?.doubleValue {
            issuedAt = Date(timeIntervalSince1970: iat)
            let t = now.timeIntervalSince1970
            if iat > t + policy.clockSkew || iat < t - policy.keyBindingMaxAge - policy.clockSkew {
                errors.append(.keyBindingIssuedAtOutsideWindow)
            }
        } else {
            errors.append(.keyBindingClaimMissing("iat"))
        }

        // Step 4.6.
        let audience = payload["aud"]?.stringValue
        if let audience {
            if let expected = policy.expectedAudience, audience != expected { errors.append(.keyBindingAudienceMismatch) }
        } else {
            errors.append(.keyBindingClaimMissing("aud"))
        }
        let nonce = payload["nonce"]?.stringValue
        if let nonce {
            if let expected = policy.expectedNonce, nonce != expected { errors.append(.keyBindingNonceMismatch) }
        } else {
            errors.append(.keyBindingClaimMissing("nonce"))
        }

        // Step 4.7, §4.3.1: over the presented text exactly.
        if let sdHash = payload["sd_hash"]?.stringValue {
            let expected = algorithm.base64URLDigest(of: sdJWT.sdHashInputText)
            if !Self.constantTimeEqual(sdHash, expected) { errors.append(.sdHashMismatch) }
        } else {
            errors.append(.keyBindingClaimMissing("sd_hash"))
        }

        guard signatureValid, let holderKey else { return nil }
        return SDJWTVerificationOutcome.KeyBinding(
            holderKey: holderKey, audience: audience, nonce: nonce, issuedAt: issuedAt, jwt: kbJWT)
    }
}
