"""pymdoccbor interop peer for MDocTests (JSON on stdin, hex or JSON on stdout).

  issue
      stdin: {"dsKeyPEM": PKCS#8 PEM, "dsChainPEM": [PEM, ...] (document signer first),
              "deviceKey": COSE_Key hex, "docType": str, "claims": hex of CBOR {ns: {id: value}},
              "issuanceDate": "YYYY-MM-DD", "expiryDate": "YYYY-MM-DD"}
      Issues with pymdoccbor.mdoc.issuer.MdocCborIssuer (ES256) and prints the hex of
      MdocCborIssuer.dump(): {"version", "documents": [{"docType", "issuerSigned"}], "status"}.
  verify
      stdin: {"response": DeviceResponse hex, "rootsPEM": [PEM, ...] or null}
      Verifies with pymdoccbor.mdoc.verifier.MdocCbor (loads + verify) and prints a JSON verdict:
      {"valid", "status", "documents": [{"docType", "valid", "signatureValid", "hashes"}],
       "rejected": documents whose verification raised, "disclosed": {ns: {id: value}},
       "log": pymdoccbor warnings and errors}.

Exit 2 means a usage or environment problem (e.g. pymdoccbor missing).
"""
import json
import logging
import sys

try:
    import cbor2
    from cryptography import x509
    from pycose.keys import CoseKey

    from pymdoccbor.mdoc.issuer import MdocCborIssuer
    from pymdoccbor.mdoc.verifier import MdocCbor, MobileDocument
    from pymdoccbor.tools import thaw_cbor
except ImportError as e:  # pragma: no cover
    print(f"pymdoccbor missing: {e}", file=sys.stderr)
    sys.exit(2)


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines = []

    def emit(self, record):
        self.lines.append(f"{record.levelname}: {record.getMessage()}")


def issue(req):
    key = CoseKey.from_pem_private_key(req["dsKeyPEM"])
    key.alg = "ES256"
    device_key = dict(cbor2.loads(bytes.fromhex(req["deviceKey"])))
    issuer = MdocCborIssuer(private_key=key, alg="ES256")
    issuer.new(
        data=thaw_cbor(cbor2.loads(bytes.fromhex(req["claims"]))),
        doctype=req["docType"],
        validity={"issuance_date": req["issuanceDate"], "expiry_date": req["expiryDate"]},
        devicekeyinfo=device_key,
        x509_chain=[pem.encode() for pem in req["dsChainPEM"]],
    )
    print(issuer.dump().hex())
    return 0


def _json_value(value):
    if isinstance(value, (bytes, bytearray)):
        return {"hex": bytes(value).hex()}
    return str(value)


def verify(req):
    log = _Collect()
    logging.getLogger("pymdoccbor").addHandler(log)
    roots = req.get("rootsPEM")
    if roots is not None:
        roots = [x509.load_pem_x509_certificate(pem.encode()) for pem in roots]
    mdoc = MdocCbor()
    verdict = {"valid": False, "documents": [], "rejected": 0, "disclosed": {}}
    try:
        mdoc.loads(bytes.fromhex(req["response"]))
        verdict["valid"] = mdoc.verify(trusted_root_certs=roots)
        verdict["status"] = mdoc.status
    except Exception as e:  # pymdoccbor raises on what it cannot parse
        verdict["exception"] = f"{type(e).__name__}: {e}"
    for doc in mdoc.documents + mdoc.documents_invalid:
        if not isinstance(doc, MobileDocument):  # verification raised (certificate, key, chain)
            verdict["rejected"] += 1
            continue
        hashes = doc.hash_verification
        verdict["documents"].append({
            "docType": doc.doctype,
            "valid": doc.is_valid,
            # MobileDocument.verify checks the hashes only after a valid signature.
            "signatureValid": hashes is not None,
            "hashes": None if hashes is None else {
                "total": hashes["total"],
                "verified": hashes["verified"],
                "failed": [
                    {k: str(f.get(k)) for k in ("namespace", "elementIdentifier", "reason")}
                    for f in hashes["failed"]
                ],
            },
        })
    verdict["disclosed"] = {
        ns: {k: _json_value(v) if not isinstance(v, (str, int, bool, list, dict)) else v for k, v in claims.items()}
        for ns, claims in mdoc.disclosure_map.items()
    }
    verdict["log"] = log.lines
    print(json.dumps(verdict, default=_json_value, sort_keys=True))
    return 0


def main(argv):
    commands = {"issue": issue, "verify": verify}
    if len(argv) != 1 or argv[0] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        req = json.load(sys.stdin)
    except ValueError as e:
        print(f"bad request: {e}", file=sys.stderr)
        return 2
    return commands[argv[0]](req)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
