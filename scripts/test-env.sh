# Sourced by scripts/test.sh and .ci/run: sets up what the tests need outside Swift.
#   tessera_debian_packages  Debian's packages (PostgreSQL, aiosmtpd, oathtool, openssl, curl, Chromium
#                            and its driver): installs the missing ones with apt-get as root, or stops
#                            naming them.
#   tessera_venv             a Python venv in .venv-test/ with the PyPI tools the tests drive (RFC 9421
#                            reference, PyJWT, Authlib, Selenium, hypercorn, schemathesis, …); exports
#                            TESSERA_TEST_PYTHON and VENV.
#   tessera_postgres         a throw-away PostgreSQL on a free loopback port, in a fresh temporary
#                            directory, unless TESSERA_TEST_DATABASE_URL is set; exports it. Stopped by
#                            tessera_postgres_stop (scripts/test.sh traps it).

# The Debian packages, each with the file that shows it is installed.
TESSERA_DEBIAN_CHECKS=(
  "postgresql:/usr/lib/postgresql/*/bin/pg_ctl"
  "python3-aiosmtpd:/usr/lib/python3/dist-packages/aiosmtpd/__init__.py"
  "python3-venv:/usr/lib/python3*/ensurepip/__init__.py"
  "openssl:/usr/bin/openssl"
  "oathtool:/usr/bin/oathtool"
  "curl:/usr/bin/curl"
  "chromium:/usr/bin/chromium"
  "chromium-driver:/usr/bin/chromedriver"
  "fonts-liberation:/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"
  "apache2:/usr/sbin/apache2"
  "libapache2-mod-auth-openidc:/usr/lib/apache2/modules/mod_auth_openidc.so"
  "systemd:/usr/bin/systemd-analyze"
  "kubectl:/usr/bin/kubectl"
)

# The PyPI tools, and the modules whose import shows they are there.
TESSERA_PYPI_PACKAGES=(
  "http-message-signatures>=3,<4" requests "schemathesis==4.32.5" "pyjwt[crypto]>=2.8,<3" openapi-spec-validator
  hypercorn h2 "authlib>=1.3,<2" "selenium>=4.20,<5" "prometheus-client>=0.20,<1" "standardwebhooks>=1.0,<2"
  "webauthn>=3,<4" "cbor2>=5.6,<7" "fido2>=2.2,<3"
)
TESSERA_PYPI_IMPORTS="http_message_signatures, requests, schemathesis, jwt, cryptography, openapi_spec_validator, hypercorn, h2, authlib, selenium, prometheus_client, standardwebhooks, webauthn, cbor2, fido2"
# axe-core 4 for the page audit: only the axe.min.js that axe-playwright-python ships is used (injected through
# Selenium), so it is installed without its dependency on Playwright; it cannot be imported, only found.
TESSERA_AXE_PACKAGE="axe-playwright-python==0.1.8"
TESSERA_AXE_CHECK='import importlib.util, sys; sys.exit(importlib.util.find_spec("axe_playwright_python") is None)'

tessera_debian_packages() {
  local missing=() entry package pattern
  for entry in "${TESSERA_DEBIAN_CHECKS[@]}"; do
    package=${entry%%:*}; pattern=${entry#*:}
    # shellcheck disable=SC2086 # the pattern is a glob on purpose
    compgen -G $pattern >/dev/null || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && { echo "Debian packages: all there"; return 0; }
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "error: the tests need these Debian packages, which are missing: ${missing[*]}" >&2
    echo "       install them as root: apt-get install ${missing[*]}" >&2
    echo "       (or run scripts/test.sh --quick, which skips what needs them and says so)" >&2
    return 1
  fi
  echo "Debian packages: installing ${missing[*]} (apt-get, about a minute)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

tessera_venv() {
  VENV=${VENV:-$PWD/.venv-test}
  export VENV
  if ! "$VENV/bin/python" -c "import $TESSERA_PYPI_IMPORTS" 2>/dev/null || ! "$VENV/bin/python" -c "$TESSERA_AXE_CHECK" 2>/dev/null; then
    echo "Python venv: creating $VENV with the PyPI test tools (pip, about a minute)"
    rm -rf "$VENV"
    /usr/bin/python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "${TESSERA_PYPI_PACKAGES[@]}"
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps "$TESSERA_AXE_PACKAGE"
    "$VENV/bin/python" -c "import $TESSERA_PYPI_IMPORTS"
    "$VENV/bin/python" -c "$TESSERA_AXE_CHECK"
  else
    echo "Python venv: $VENV"
  fi
  export TESSERA_TEST_PYTHON="$VENV/bin/python"
}

TESSERA_PG_STARTED=
tessera_postgres() {
  if [ -n "${TESSERA_TEST_DATABASE_URL:-}" ]; then
    echo "PostgreSQL: the server of TESSERA_TEST_DATABASE_URL"
    return 0
  fi
  TESSERA_PGDIR=$(mktemp -d /tmp/tessera-test-pg.XXXXXX)
  export PGDATA="$TESSERA_PGDIR/data"
  PGPORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  export PGPORT
  TESSERA_PG_STARTED=1
  bash .ci/postgres.sh start
  export TESSERA_TEST_DATABASE_URL="postgres://postgres:secret@127.0.0.1:$PGPORT/tessera_test"
}

# Fails when a test left a database behind (each test drops its own), then stops a server we started.
tessera_postgres_check_left() {
  [ -n "$TESSERA_PG_STARTED" ] || return 0
  local left
  left=$(PGPASSWORD=secret "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -tAc \
    "SELECT count(*) FROM pg_database WHERE datname LIKE 'tessera\_t\_%'" tessera_test)
  if [ "$left" != "0" ]; then echo "error: $left test databases were left behind"; return 1; fi
  echo "PostgreSQL: every test database was dropped at the end of its test"
}

tessera_postgres_stop() {
  [ -n "$TESSERA_PG_STARTED" ] || return 0
  bash .ci/postgres.sh stop || true
  rm -rf "$TESSERA_PGDIR"
  TESSERA_PG_STARTED=
}
