"""Writes reference-matrices.json: QR Code module matrices made by python-qrcode (an independent encoder, the
`qrcode` package pinned in scripts/requirements-peers.txt) for fixed byte-mode inputs, versions, levels and masks.

segno 1.6.6 is not used: it writes 8 padding bits when the bit stream already ends on a codeword boundary
(heuer/segno issue #148), which after a byte-mode terminator is always the case, so its symbols carry an extra
0x00 codeword instead of the 0xEC/0x11 pad codewords of ISO/IEC 18004:2015 §7.4.10 (they still decode).

Run from the package root:  .build/pyenv/bin/python Tests/TesseraQRTests/Fixtures/make_reference_matrices.py
"""
import base64
import json
import pathlib
from importlib.metadata import version

import qrcode
from qrcode.util import MODE_8BIT_BYTE, QRData

# ISO 18013-5 Annex D.3.1 QR DeviceEngagement (shared vectors iso18013-5-annex-d.json), as the mdoc: URI of §8.2.2.3.
ENGAGEMENT = bytes.fromhex(
    "a30063312e30018201d818584ba4010220012158205a88d182bce5f42efa59943f33359d2e8a968ff289d93e5fa444b624343167fe"
    "225820b16e8cf858ddc7690407ba61d4c338237a8cfcf3de6aa672fc60a557aa32fc670281830201a300f401f50b5045efef742b2c"
    "4837a9a3b0e1d05a6917"
)
MDOC_URI = b"mdoc:" + base64.urlsafe_b64encode(ENGAGEMENT).rstrip(b"=")
OPENID4VP_URI = (
    b"openid4vp://?client_id=x509_san_dns%3Averifier.example.org"
    b"&request_uri=https%3A%2F%2Fverifier.example.org%2Foid4vp%2Frequest%2F"
    b"9f3c2a71-6a0e-4c57-9d44-2b8f0f7c1e55&request_uri_method=post"
)
ALL_BYTES = bytes(range(256))

CASES = [
    # name, data, level, version (None: qrcode's choice), mask (None: qrcode's choice)
    ("mdoc-engagement-M", MDOC_URI, "M", None, None),
    ("openid4vp-Q-v12-mask5", OPENID4VP_URI, "Q", 12, 5),
    ("all-bytes-H-v18-mask3", ALL_BYTES, "H", 18, 3),
    ("hello-L-v1-mask0", b"hello", "L", 1, 0),
]


def main():
    out = []
    levels = {"L": qrcode.constants.ERROR_CORRECT_L, "M": qrcode.constants.ERROR_CORRECT_M,
              "Q": qrcode.constants.ERROR_CORRECT_Q, "H": qrcode.constants.ERROR_CORRECT_H}
    for name, data, level, ver, mask in CASES:
        qr = qrcode.QRCode(version=ver, error_correction=levels[level], mask_pattern=mask, border=0)
        qr.add_data(QRData(data, mode=MODE_8BIT_BYTE), optimize=0)
        qr.make(fit=ver is None)
        if mask is None:
            mask = qr.best_mask_pattern()
            qr.mask_pattern = mask
            qr.makeImpl(False, mask)
        rows = ["".join("1" if m else "0" for m in row) for row in qr.modules]
        out.append({
            "name": name,
            "data_hex": data.hex(),
            "level": level,
            "version": qr.version,
            "mask": mask,
            "rows": rows,
        })
    doc = {
        "source": f"qrcode {version('qrcode')} QRCode(version, error_correction, mask_pattern, border=0)"
                  " with QRData(data, MODE_8BIT_BYTE); rows top to bottom, '1' dark, no quiet zone",
        "cases": out,
    }
    path = pathlib.Path(__file__).with_name("reference-matrices.json")
    path.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
