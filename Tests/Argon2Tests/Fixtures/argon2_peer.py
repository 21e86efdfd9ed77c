"""argon2-cffi peer for Argon2Tests (ArgonCFFIInteropTests.swift).

    python argon2_peer.py raw     REQUEST.json  -> for each case, argon2-cffi's raw tag of the inputs and
                                                   whether verify_secret accepts Swift's PHC string (and
                                                   refuses it for a changed password)
    python argon2_peer.py hasher  REQUEST.json  -> PHC strings from argon2.PasswordHasher

Hex in, JSON on stdout. Exit status 2 when argon2-cffi cannot be imported.
"""
import json
import sys

try:
    import argon2
    from argon2.exceptions import VerificationError
    from argon2.low_level import Type, core, error_to_str, hash_secret_raw, verify_secret
    from _argon2_cffi_bindings import ffi, lib
except ImportError as error:  # the venv lacks the peer: the Swift test records a failure
    print(f"argon2-cffi not importable: {error}", file=sys.stderr)
    sys.exit(2)

TYPES = {"argon2d": Type.D, "argon2i": Type.I, "argon2id": Type.ID}


def tag_with_secret(case, password, salt, secret, ad):
    """argon2_ctx through the low-level binding: the only argon2-cffi path that takes K and X."""
    out = ffi.new("uint8_t[]", case["tag_length"])
    buffers = [ffi.new("uint8_t[]", b) for b in (password, salt, secret, ad)]
    ctx = ffi.new(
        "argon2_context *",
        dict(
            version=case["version"], out=out, outlen=case["tag_length"],
            pwd=buffers[0], pwdlen=len(password), salt=buffers[1], saltlen=len(salt),
            secret=buffers[2], secretlen=len(secret), ad=buffers[3], adlen=len(ad),
            t_cost=case["iterations"], m_cost=case["memory_kib"], lanes=case["parallelism"],
            threads=case["parallelism"], allocate_cbk=ffi.NULL, free_cbk=ffi.NULL,
            flags=lib.ARGON2_DEFAULT_FLAGS,
        ),
    )
    status = core(ctx, TYPES[case["type"]].value)
    if status != lib.ARGON2_OK:
        raise ValueError(error_to_str(status))
    return bytes(ffi.buffer(out, case["tag_length"]))


def raw(cases):
    results = []
    for case in cases:
        password = bytes.fromhex(case["password_hex"])
        salt = bytes.fromhex(case["salt_hex"])
        secret = bytes.fromhex(case["secret_hex"])
        ad = bytes.fromhex(case["associated_data_hex"])
        kind = TYPES[case["type"]]
        if secret or ad:
            tag = tag_with_secret(case, password, salt, secret, ad)
        else:
            tag = hash_secret_raw(
                password, salt, case["iterations"], case["memory_kib"], case["parallelism"],
                case["tag_length"], kind, case["version"])
        result = {"tag_hex": tag.hex()}
        encoded = case.get("phc_string")
        if encoded is not None:
            result["verifies"] = verify_secret(encoded.encode(), password, kind)
            try:
                verify_secret(encoded.encode(), password + b"!", kind)
                result["wrong_password_refused"] = False
            except VerificationError:
                result["wrong_password_refused"] = True
        results.append(result)
    return results


def hasher(cases):
    results = []
    for case in cases:
        ph = argon2.PasswordHasher(
            time_cost=case["iterations"], memory_cost=case["memory_kib"], parallelism=case["parallelism"],
            hash_len=case["tag_length"], salt_len=case["salt_length"], type=TYPES[case["type"]])
        results.append({"phc_string": ph.hash(bytes.fromhex(case["password_hex"]))})
    return results


def main():
    mode, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        cases = json.load(f)
    print(json.dumps({"raw": raw, "hasher": hasher}[mode](cases)))


if __name__ == "__main__":
    main()
