import TesseraCore
import Crypto
import Foundation
import TesseraJOSE
import TesseraTrust
import X509

/// Which `response_uri` / `redirect_uri` values a Client Identifier may use (§5.9.3, §14.3.1).
enum DestinationRule: Sendable, Hashable {
    /// Exactly one of these strings (pre-registration, `redirect_uri` prefix, attestation `redirect_uris`).
    case exactly([String])
    /// A URI whose host is this DNS name (`x509_san_dns` without extra trust).
    case host(String)
    /// Any URI (the identifier's trust covers it).
    case unrestricted

    func check(_ uri: String) throws(OpenID4VPError) {
        switch self {
        case .exactly(let allowed):
            guard allowed.contains(uri) else { throw .responseURINotAllowed("not one of the client's URIs") }
        case .host(let name):
            guard let host = URL(string: uri)?.host, host.lowercased() == name.lowercased() else {
                throw .responseURINotAllowed("host differs from the x509_san_dns Client Identifier")
            }
        case .unrestricted:
            return
        }
    }
}

/// The outcome of authenticating the verifier by its Client Identifier Prefix.
struct ClientAuthentication: Sendable {
    var verifier: VerifierInfo
    /// Metadata the wallet holds for a pre-registered client.
    var preRegisteredMetadata: JSONObject?
    var destination: DestinationRule
    /// The response destination implied by the identifier when the request omits it (`redirect_uri` prefix).
    var impliedDestination: String?
}

/// §5.9: authenticates the verifier per Client Identifier Prefix. Signatures are always verified; identifier
/// bindings (SAN, hash, attestation `sub`, DID `kid`) always checked; only a certificate chain that does not
/// reach an anchor may be tolerated, under `VerifierTrustPolicy.allowUntrusted`.
enum ClientAuthenticator {
    static func authenticate(
        _ parsed: ParsedAuthorizationRequest, config: WalletConfiguration
    ) async throws(OpenID4VPError) -> ClientAuthentication {
        let clientId = parsed.clientId
        let prefix = clientId.prefix
        if prefix == .origin { throw .unsupportedClientIdPrefix(prefix.rawValue) }
        guard config.supportedClientIdPrefixes.contains(prefix), prefix != .openIDFederation else {
            throw .unsupportedClientIdPrefix(prefix.rawValue)
        }
        if prefix.requiresSignedRequest && !parsed.isSigned { throw .unsignedRequestNotAllowed(prefix: prefix.rawValue) }
        if prefix == .redirectURI && parsed.isSigned { throw .signedRequestNotAllowed(prefix: prefix.rawValue) }

        let authentication: ClientAuthentication
        switch prefix {
        case .preRegistered: authentication = try preRegistered(parsed, config: config)
        case .redirectURI: authentication = try redirectURI(parsed)
        case .x509SanDNS, .x509Hash: authentication = try await x509(parsed, config: config)
        case .verifierAttestation: authentication = try verifierAttestation(parsed, config: config)
        case .decentralizedIdentifier: authentication = try await decentralizedIdentifier(parsed, config: config)
        case .openIDFederation, .origin: throw .unsupportedClientIdPrefix(prefix.rawValue)
        }
        if let jws = parsed.requestObject { try checkValidityPeriod(jws, config: config) }
        return authentication
    }

    // MARK: Prefixes

    /// §5.9.2: a client the wallet knows; signed requests verify with its registered keys.
    static func preRegistered(_ parsed: ParsedAuthorizationRequest, config: WalletConfiguration) throws(OpenID4VPError) -> ClientAuthentication {
        let clientId = parsed.clientId
        guard let client = config.preRegisteredClients[clientId.full] else {
            if let declared = clientId.declaredPrefix { throw .unsupportedClientIdPrefix(declared) }
            throw .unknownClient(clientId.full)
        }
        if let jws = parsed.requestObject {
            guard !client.requestSigningKeys.isEmpty else {
                throw .invalidClientId("the pre-registered client has no request signing keys")
            }
            try verify(jws, withAnyOf: client.requestSigningKeys)
        } else if client.requiresSignedRequests {
            throw .unsignedRequestNotAllowed(prefix: ClientIdPrefix.preRegistered.rawValue)
        }
        return ClientAuthentication(
            verifier: VerifierInfo(
                clientId: clientId.full, clientIdPrefix: .preRegistered, clientIdValid: true,
                displayName: client.displayName, logoUri: client.logoURI, trustRoot: .preRegistration),
            preRegisteredMetadata: client.metadata, destination: .exactly(client.redirectURIs),
            impliedDestination: client.redirectURIs.count == 1 ? client.redirectURIs.first : nil)
    }

    /// §5.9.3 `redirect_uri`: unsigned; the identifier is the redirect (or response) URI. Never authenticated.
    static func redirectURI(_ parsed: ParsedAuthorizationRequest) throws(OpenID4VPError) -> ClientAuthentication {
        let uri = parsed.clientId.original
        guard let url = URL(string: uri), url.scheme != nil else {
            throw .invalidClientId("redirect_uri Client Identifier is not an absolute URI")
        }
        return ClientAuthentication(
            verifier: VerifierInfo(clientId: parsed.clientId.full, clientIdPrefix: .redirectURI, clientIdValid: true),
            preRegisteredMetadata: nil, destination: .exactly([uri]), impliedDestination: uri)
    }

    /// §5.9.3 `x509_san_dns` / `x509_hash`: signed with the leaf key of the `x5c` chain, which must validate to
    /// an anchor and carry the identifier (a dNSName SAN, or the leaf's SHA-256 hash).
    static func x509(_ parsed: ParsedAuthorizationRequest, config: WalletConfiguration) async throws(OpenID4VPError) -> ClientAuthentication {
        guard let jws = parsed.requestObject else { throw .unsignedRequestNotAllowed(prefix: parsed.clientId.prefix.rawValue) }
        let clientId = parsed.clientId
        let chain: [Data]
        do {
            chain = try jws.x5cCertificates()
        } catch {
            throw .invalidVerifierCertificate(error.description)
        }
        guard let leafDER = chain.first, let leaf = try? Certificate(derEncoded: Array(leafDER)) else {
            throw .invalidVerifierCertificate("the leaf certificate does not parse")
        }
        let key: JWSVerificationKey
        do {
            key = try JWSVerificationKey(certificate: leaf)
        } catch {
            throw .invalidVerifierCertificate(error.description)
        }
        do {
            try jws.verify(with: key)
        } catch {
            throw .requestSignatureInvalid(error)
        }
        let destination: DestinationRule
        if clientId.prefix == .x509SanDNS {
            let names = (try? leaf.extensions.subjectAlternativeNames)??.compactMap { name -> String? in
                if case .dnsName(let dns) = name { return dns }
                return nil
            } ?? []
            guard names.contains(where: { $0.lowercased() == clientId.original.lowercased() }) else {
                throw .x509SANMismatch(clientId.original)
            }
            // §5.9.3: unless the wallet trusts the identifier, the redirect URI's host is the DNS name.
            destination = config.trustedClientIds.contains(clientId.full) ? .unrestricted : .host(clientId.original)
        } else {
            let hash = Base64URL.encode(SHA256.hash(data: leafDER))
            guard ConstantTime.equal(Data(hash.utf8), Data(clientId.original.utf8)) else { throw .x509HashMismatch }
            destination = .unrestricted
        }
        let outcome = await validateX5CChain(chain, anchors: TrustAnchors(config.verifierTrustAnchors), at: config.clock.now())
        if outcome.isValid {
            return ClientAuthentication(
                verifier: VerifierInfo(
                    clientId: clientId.full, clientIdPrefix: clientId.prefix, clientIdValid: true,
                    displayName: displayName(of: leaf), trustRoot: .x509(anchorSubject: outcome.anchor?.subject.description ?? ""),
                    certificate: leaf),
                preRegisteredMetadata: nil, destination: destination, impliedDestination: nil)
        }
        let failure = OpenID4VPError.verifierCertificateUntrusted(outcome.failures.map(\.description))
        guard config.verifierTrustPolicy == .allowUntrusted else { throw failure }
        return ClientAuthentication(
            verifier: VerifierInfo(
                clientId: clientId.full, clientIdPrefix: clientId.prefix, clientIdValid: false,
                clientIdValidationErrors: [failure], certificate: leaf),
            preRegisteredMetadata: nil, destination: destination, impliedDestination: nil)
    }

    /// §5.9.3 `verifier_attestation`, §12: the `jwt` header holds a Verifier Attestation JWT from a trusted
    /// issuer whose `sub` is the identifier and whose `cnf` key signed the request.
    static func verifierAttestation(_ parsed: ParsedAuthorizationRequest, config: WalletConfiguration) throws(OpenID4VPError) -> ClientAuthentication {
        guard let jws = parsed.requestObject else { throw .unsignedRequestNotAllowed(prefix: parsed.clientId.prefix.rawValue) }
        let clientId = parsed.clientId
        guard let token = jws.header["jwt"]?.stringValue else { throw .invalidVerifierAttestation("no jwt header") }
        let attestation: CompactJWS
        do {
            attestation = try CompactJWS(parsing: token, limits: config.limits.jose)
        } catch {
            throw .invalidVerifierAttestation("not a compact JWS (\(error))")
        }
        guard attestation.type?.lowercased() == "verifier-attestation+jwt" else {
            throw .invalidVerifierAttestation("typ is not verifier-attestation+jwt")
        }
        let claims: JSONObject
        do {
            claims = try attestation.payloadJSON()
        } catch {
            throw .invalidVerifierAttestation("payload is not a JSON object")
        }
        guard let issuer = claims["iss"]?.stringValue else { throw .invalidVerifierAttestation("iss is missing") }
        guard let issuerKeys = config.verifierAttestationIssuers[issuer], !issuerKeys.isEmpty else {
            throw .untrustedVerifierAttestationIssuer(issuer)
        }
        let candidates = issuerKeys.filter { attestation.keyID == nil || $0.kid == nil || $0.kid == attestation.keyID }
        guard candidates.contains(where: { (try? attestation.verify(with: JWSVerificationKey(jwk: $0))) != nil }) else {
            throw .invalidVerifierAttestation("signature does not verify with the issuer's keys")
        }
        let now = config.clock.now().timeIntervalSince1970
        guard let exp = claims["exp"]?.doubleValue else { throw .invalidVerifierAttestation("exp is missing") }
        guard exp + config.clockSkew >= now else { throw .invalidVerifierAttestation("expired") }
        if let nbf = claims["nbf"]?.doubleValue, nbf - config.clockSkew > now {
            throw .invalidVerifierAttestation("not yet valid")
        }
        guard claims["sub"]?.stringValue == clientId.original else {
            throw .invalidClientId("the Verifier Attestation sub is not the Client Identifier")
        }
        guard let cnf = claims["cnf"]?["jwk"]?.objectValue, let cnfKey = try? JWK(json: cnf) else {
            throw .invalidVerifierAttestation("cnf.jwk is missing or invalid")
        }
        try verify(jws, withAnyOf: [cnfKey])
        var destination = DestinationRule.unrestricted
        if let uris = claims["redirect_uris"] {
            guard let array = uris.arrayValue else { throw .invalidVerifierAttestation("redirect_uris is not an array") }
            destination = .exactly(array.compactMap(\.stringValue))
        }
        return ClientAuthentication(
            verifier: VerifierInfo(
                clientId: clientId.full, clientIdPrefix: .verifierAttestation, clientIdValid: true,
                trustRoot: .verifierAttestation(issuer: issuer)),
            preRegisteredMetadata: nil, destination: destination, impliedDestination: nil)
    }

    /// §5.9.3 `decentralized_identifier`: signed with the DID Document key that the `kid` names.
    static func decentralizedIdentifier(
        _ parsed: ParsedAuthorizationRequest, config: WalletConfiguration
    ) async throws(OpenID4VPError) -> ClientAuthentication {
        guard let jws = parsed.requestObject else { throw .unsignedRequestNotAllowed(prefix: parsed.clientId.prefix.rawValue) }
        let did = parsed.clientId.original
        guard did.hasPrefix("did:") else { throw .invalidClientId("not a DID") }
        guard let kid = jws.keyID else { throw .invalidDecentralizedIdentifier("the request has no kid") }
        let absoluteKid = kid.hasPrefix("#") ? did + kid : kid
        guard absoluteKid.hasPrefix(did + "#") else {
            throw .invalidDecentralizedIdentifier("kid is not a verification method of the Client Identifier's DID")
        }
        let methods = try await config.didResolver.verificationMethods(of: did)
        guard let method = methods.first(where: { $0.id == absoluteKid }) else {
            throw .invalidDecentralizedIdentifier("the DID Document has no verification method \(absoluteKid)")
        }
        try verify(jws, withAnyOf: [method.publicKey])
        return ClientAuthentication(
            verifier: VerifierInfo(
                clientId: parsed.clientId.full, clientIdPrefix: .decentralizedIdentifier, clientIdValid: true,
                trustRoot: .decentralizedIdentifier(did)),
            preRegisteredMetadata: nil, destination: .unrestricted, impliedDestination: nil)
    }

    // MARK: Helpers

    /// Verifies `jws` with the first key whose `kid` fits (all keys when the header has no `kid`).
    static func verify(_ jws: CompactJWS, withAnyOf keys: [JWK]) throws(OpenID4VPError) {
        let candidates = keys.filter { jws.keyID == nil || $0.kid == nil || $0.kid == jws.keyID }
        var lastError = JOSEError.invalidSignature
        for jwk in candidates {
            do {
                try jws.verify(with: try JWSVerificationKey(jwk: jwk))
                return
            } catch {
                lastError = error
            }
        }
        throw .requestSignatureInvalid(lastError)
    }

    /// RFC 9101 §10.2 / RFC 7519 §4.1.4–4.1.5: an expired or not yet valid Request Object is refused.
    static func checkValidityPeriod(_ jws: CompactJWS, config: WalletConfiguration) throws(OpenID4VPError) {
        guard let claims = try? jws.payloadJSON() else { return }
        let now = config.clock.now().timeIntervalSince1970
        if let exp = claims["exp"] {
            guard let value = exp.doubleValue else { throw .invalidParameter(name: "exp", reason: "not a number") }
            guard value + config.clockSkew >= now else { throw .invalidParameter(name: "exp", reason: "the Request Object has expired") }
        }
        if let nbf = claims["nbf"] {
            guard let value = nbf.doubleValue else { throw .invalidParameter(name: "nbf", reason: "not a number") }
            guard value - config.clockSkew <= now else { throw .invalidParameter(name: "nbf", reason: "the Request Object is not yet valid") }
        }
    }

    /// The subject's organizationName, else its commonName.
    static func displayName(of certificate: Certificate) -> String? {
        var organization: String?
        var commonName: String?
        for rdn in certificate.subject {
            for attribute in rdn {
                if attribute.type == .RDNAttributeType.organizationName, organization == nil {
                    organization = String(attribute.value)
                } else if attribute.type == .RDNAttributeType.commonName, commonName == nil {
                    commonName = String(attribute.value)
                }
            }
        }
        return organization ?? commonName
    }
}
