// libFuzzer target `oid4vp-request`: what an OpenID4VP wallet reads from verifiers, and what a verifier's
// Response URI reads from wallets. The first input byte picks the mode (modulo 4); the rest is:
//   0: an invocation URI — parsed (no network: `request_uri` fetches fail) and, when it parses, resolved
//      (Client Identifier Prefix, request parameters, DCQL, transaction data, destination, encryption key);
//   1: a DCQL query (JSON text) — parsed, rebuilt, matched against a fixed wallet;
//   2: a form-encoded Authorization Response body — parsed, its vp_token checked against a fixed query;
//   3: Request Object claims (JSON object) — read as Authorization Request parameters.
//
// Properties checked for every input (a violation aborts, so libFuzzer keeps the input):
//   1. No crash (ASan checks memory); every failure is a typed OpenID4VPError.
//   2. Form encoding: decoded pairs re-encode to text that decodes to the same pairs.
//   3. DCQL: a parsed query rebuilt from its model serializes to JSON that parses to an equal model; matching
//      is deterministic; the preferred selection, when there is one, is accepted by `select` and only uses
//      candidates; an unsatisfiable match yields `requiredCredentialsUnavailable`.
//   4. An unsigned request never resolves to an authenticated verifier unless pre-registered.

import Foundation
import FuzzSupport
import MDoc
import OpenID4VP
import SDJWT
import TesseraCBOR
import TesseraCore
import TesseraHTTP
import TesseraJOSE

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

private func violation(_ message: String, _ input: Data) -> Never {
    let hex = input.prefix(512).map { String(format: "%02x", $0) }.joined()
    FileHandle.standardError.write(Data("FUZZ PROPERTY VIOLATION (oid4vp-request): \(message)\ninput: \(hex)\n".utf8))
    abort()
}

/// No network: every fetch answers 503.
private struct OfflineHTTPClient: HTTPClient {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        HTTPResponse(status: 503)
    }
}

private let config = WalletConfiguration(
    httpClient: OfflineHTTPClient(), clock: FixedClock(Date(timeIntervalSince1970: 1_767_225_600)),
    random: SeededRandomSource(seed: 1), supportedTransactionDataTypes: ["urn:example:payment"],
    limits: OpenID4VPLimits(maxInvocationURILength: 64 << 10))

/// A fixed wallet: one SD-JWT VC (claims only) and one mdoc-shaped credential is not needed for properties.
private let wallet: [WalletCredential] = [
    .sdJWTVC(SDJWTVCCredential(
        id: "pid", vct: "https://credentials.example.com/identity_credential",
        claims: [
            "given_name": "John", "family_name": "Doe", "age": 42, "adult": true,
            "address": ["street_address": "123 Main St", "locality": "Anytown"], "nationalities": ["US", "DE"],
        ],
        hasCryptographicHolderBinding: true, authorityKeyIdentifiers: [Data([1, 2, 3])], compactSDJWT: "", holderKey: nil)),
    .sdJWTVC(SDJWTVCCredential(
        id: "ticket", vct: "t", claims: ["seat": "12A"], hasCryptographicHolderBinding: false, compactSDJWT: "", holderKey: nil)),
]

private let fixedQuery: DCQLQuery? = try? DCQLQuery(parsing: """
    {"credentials":[{"id":"a","format":"dc+sd-jwt","meta":{"vct_values":["t"]},"multiple":true},
    {"id":"b","format":"mso_mdoc","meta":{"doctype_value":"d"}}],
    "credential_sets":[{"options":[["a"],["b"]]},{"options":[["b"]],"required":false}]}
    """)

/// The async modes run on one long-lived task fed through a stream, so that everything an input allocates is
/// released before the callback returns (a task per input would be torn down after the callback, which
/// LeakSanitizer reports as a leak).
private final class AsyncWorker: Sendable {
    private let continuation: AsyncStream<(String, Data)>.Continuation
    private let done = DispatchSemaphore(value: 0)

    init() {
        let (stream, continuation) = AsyncStream<(String, Data)>.makeStream(bufferingPolicy: .unbounded)
        self.continuation = continuation
        let done = self.done
        Task.detached {
            var iterator = stream.makeAsyncIterator()
            while await Self.handleNext(&iterator) { done.signal() }
        }
    }

    /// Processes one input; its locals are gone when this returns.
    private static func handleNext(_ iterator: inout AsyncStream<(String, Data)>.AsyncIterator) async -> Bool {
        guard let (text, input) = await iterator.next() else { return false }
        await invocation(text, input)
        return true
    }

    func run(_ text: String, _ input: Data) {
        continuation.yield((text, input))
        done.wait()
    }

    private static func invocation(_ text: String, _ input: Data) async {
        guard let parsed = try? await parseAuthorizationRequest(requestUri: text, walletConfig: config) else { return }
        if let resolved = try? await resolveAuthorizationRequest(parsed, walletConfig: config) {
            if !parsed.isSigned && resolved.verifier.isAuthenticated && resolved.verifier.clientIdPrefix != .preRegistered {
                violation("an unsigned request resolved to an authenticated verifier", input)
            }
            _ = resolved.match(wallet)
        }
        _ = await errorResponseDestination(for: parsed, walletConfig: config)
    }
}

private let worker = AsyncWorker()

private func fuzzInvocation(_ text: String, _ input: Data) {
    worker.run(text, input)
}

private func fuzzDCQL(_ text: String, _ input: Data) {
    guard let query = try? DCQLQuery(parsing: text) else { return }
    do {
        let rebuilt = try DCQLQuery(credentials: query.credentials, credentialSets: query.credentialSets)
        let reparsed = try DCQLQuery(parsing: JSONValue.object(rebuilt.json).serializedString)
        if reparsed.credentials != query.credentials || reparsed.credentialSets != query.credentialSets {
            violation("DCQL model does not survive a round trip", input)
        }
    } catch {
        violation("a parsed DCQL query cannot be rebuilt: \(error)", input)
    }
    let match = DCQLMatch(query: query, credentials: wallet)
    let again = DCQLMatch(query: query, credentials: wallet)
    if match.isSatisfiable != again.isSatisfiable || match.credentialSets != again.credentialSets {
        violation("matching is not deterministic", input)
    }
    do {
        let selection = try match.preferredSelection()
        var choice: [String: [String]] = [:]
        for selected in selection.credentials {
            guard match.candidates[selected.queryId]?.contains(where: { $0.credential.id == selected.credential.id }) == true else {
                violation("the preferred selection uses a non-candidate", input)
            }
            choice[selected.queryId, default: []].append(selected.credential.id)
        }
        _ = try match.select(choice)
    } catch .requiredCredentialsUnavailable {
        if match.isSatisfiable { violation("a satisfiable match refused a selection", input) }
    } catch {
        violation("the preferred selection is rejected by select: \(error)", input)
    }
}

private func fuzzResponseBody(_ body: Data, _ input: Data) {
    guard let received = try? ReceivedAuthorizationResponse.parse(formBody: body) else { return }
    if case .vpToken(let token, _) = received.response, let fixedQuery {
        _ = try? VPTokenValidation.validateStructure(token, against: fixedQuery)
        if (try? VPToken(json: token.json)) != token { violation("vp_token does not survive a round trip", input) }
    }
}

private func fuzzRequestClaims(_ bytes: Data) {
    guard let object = (try? JSONValue.parse(bytes))?.objectValue else { return }
    _ = try? AuthorizationRequest(parameters: object)
}

private func checkFormEncoding(_ text: String, _ input: Data) {
    guard let pairs = try? FormURLEncoding.decode(text) else { return }
    let encoded = FormURLEncoding.encode(pairs.map { ($0.name, $0.value) })
    guard let again = try? FormURLEncoding.decode(encoded) else { violation("re-encoded form does not decode", input) }
    if again.map(\.name) != pairs.map(\.name) || again.map(\.value) != pairs.map(\.value) {
        violation("form encoding round trip changed the pairs", input)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(bytes: data, count: size)
    guard let mode = input.first else { return 0 }
    let body = Data(input.dropFirst())
    let text = String(decoding: body, as: UTF8.self)
    switch mode % 4 {
    case 0:
        fuzzInvocation(text, input)
        if let query = text.split(separator: "?", maxSplits: 1).last { checkFormEncoding(String(query), input) }
    case 1: fuzzDCQL(text, input)
    case 2:
        fuzzResponseBody(body, input)
        checkFormEncoding(text, input)
    default: fuzzRequestClaims(body)
    }
    return 0
}

@_cdecl("FuzzOpenID4VP_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
