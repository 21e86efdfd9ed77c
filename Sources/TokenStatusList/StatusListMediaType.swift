/// The media types a Status Provider serves Status List Tokens as and a client asks for in `Accept`
/// (TSL §8.1, §8.2).
public enum StatusListMediaType {
    /// `application/statuslist+jwt`: the JWT form (TSL §5.1), a compact JWS in ASCII.
    public static let jwt = "application/statuslist+jwt"
    /// `application/statuslist+cwt`: the CWT form (TSL §5.2), binary CBOR; also the CWT's `typ` (label 16).
    public static let cwt = "application/statuslist+cwt"
}
