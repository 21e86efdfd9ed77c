/// `SecurityLevel` of the key attestation schema (ENUMERATED): where the attestation or the key lives.
public enum AndroidSecurityLevel: Int, Sendable {
    case software = 0
    case trustedEnvironment = 1
    case strongBox = 2
}

/// `VerifiedBootState` of RootOfTrust (ENUMERATED): how the booted software was verified.
public enum AndroidVerifiedBootState: Int, Sendable {
    case verified = 0
    case selfSigned = 1
    case unverified = 2
    case failed = 3
}
