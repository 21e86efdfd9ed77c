# Sourced by scripts/test and scripts/bench-cbor-vs-cbor2 (bash; the caller has cd'd to the repo root).
#
# ensure_pyenv: makes .build/pyenv a venv holding exactly scripts/requirements-peers.txt
# (cbor2, pycose, pymdoccbor, jwcrypto, sd-jwt and their pinned dependencies, from PyPI). Skips all work when
# the venv exists, its stamp matches the requirements file and the peers import. Sets PYENV_PYTHON.

# Modules the tests import from the venv (checked after every setup).
PEER_MODULES="cbor2, pycose, pymdoccbor, zxingcpp, PIL, qrcode, jwcrypto, sd_jwt, selenium, argon2, nats, nkeys, nacl"

ensure_pyenv() {
  local dir=$PWD/.build/pyenv
  local requirements=$PWD/scripts/requirements-peers.txt
  local stamp=$dir/.requirements.sha256
  local want
  want=$(sha256sum "$requirements" | cut -d' ' -f1)
  PYENV_PYTHON=$dir/bin/python3
  if [[ -x $PYENV_PYTHON && -f $stamp && $(cat "$stamp") == "$want" ]] \
    && "$PYENV_PYTHON" -c "import $PEER_MODULES" >/dev/null 2>&1; then
    echo "venv: $dir is up to date"
  else
    if ! { [[ -x $PYENV_PYTHON ]] && "$PYENV_PYTHON" -c 'import sys' >/dev/null 2>&1; }; then
      rm -rf "$dir"
      mkdir -p "$(dirname "$dir")"
      python3 -m venv "$dir"
    fi
    "$PYENV_PYTHON" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    "$PYENV_PYTHON" -c "import $PEER_MODULES"
    echo "$want" >"$stamp"
    echo "venv: installed scripts/requirements-peers.txt into $dir"
  fi
  "$PYENV_PYTHON" - <<'PY'
from importlib.metadata import version
import importlib.util
c_ext = importlib.util.find_spec("cbor2._cbor2") is not None
print(f"venv: cbor2 {version('cbor2')} ({'C extension' if c_ext else 'pure Python'}),"
      f" pycose {version('pycose')}, pymdoccbor {version('pymdoccbor')}, jwcrypto {version('jwcrypto')},"
      f" sd-jwt {version('sd-jwt')}")
PY
}
