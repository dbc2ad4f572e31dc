"""A second, independent relying party for the browser tests: Apache httpd with mod_auth_openidc (Debian's
apache2 and libapache2-mod-auth-openidc), configured against Tessera with static provider settings.

    $TESSERA_TEST_PYTHON apache_rp.py --dir DIR --issuer ISSUER --provider TESSERA_URL --client-id ID --secret SECRET

/protected/ needs a sign-in (code flow with PKCE S256, client_secret_basic); its redirect URI is
/protected/redirect_uri, which also answers `?info=json` (the session: the ID token's claims) and
`?logout=URL` (RP-initiated logout through Tessera's end_session_endpoint), and takes back-channel logout
tokens at `?logout=backchannel`. /signed-out.html is the page to come back to. The port is written to DIR/port
once Apache answers; Apache stops when stdin reaches EOF. Its error log is DIR/error.log.
"""
import argparse
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request

MODULES = ["mpm_event", "authn_core", "authz_core", "authz_user", "mime", "dir", "headers", "auth_openidc"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    for name in ("--dir", "--issuer", "--provider", "--client-id", "--secret"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    www = os.path.join(args.dir, "www")
    os.makedirs(os.path.join(www, "protected"), exist_ok=True)
    os.makedirs(os.path.join(args.dir, "run"), exist_ok=True)
    with open(os.path.join(www, "protected", "index.html"), "w") as f:
        f.write('<!DOCTYPE html><html><head><title>RP</title></head><body><p id="rp">Signed in at the Apache RP</p></body></html>')
    with open(os.path.join(www, "signed-out.html"), "w") as f:
        f.write('<!DOCTYPE html><html><head><title>Signed out</title></head><body><p id="rp">Signed out</p></body></html>')
    # Aged by an hour, so a browser would hold it heuristically fresh for minutes: the header below is what makes
    # every visit reach mod_auth_openidc, on a quiet machine as on a loaded one.
    os.utime(os.path.join(www, "protected", "index.html"), (time.time() - 3600, time.time() - 3600))
    for path in (args.dir, www, os.path.join(www, "protected")):
        os.chmod(path, 0o755)
    provider = args.provider.rstrip("/")
    user = "User www-data\nGroup www-data\n" if os.geteuid() == 0 else ""
    config = "\n".join(["LoadModule %s_module /usr/lib/apache2/modules/mod_%s.so" % (m, m) for m in MODULES] + [
        "ServerName 127.0.0.1",
        "Listen 127.0.0.1:%d" % port,
        user + "PidFile %s/httpd.pid" % args.dir,
        "DefaultRuntimeDir %s/run" % args.dir,
        "ErrorLog %s/error.log" % args.dir,
        "LogLevel warn auth_openidc:info",
        'LogFormat "%h %r %>s" short',
        "CustomLog %s/access.log short" % args.dir,
        "TypesConfig /etc/mime.types",
        "DocumentRoot %s" % www,
        "DirectoryIndex index.html",
        "OIDCProviderMetadataURL %s/.well-known/openid-configuration" % provider,
        "OIDCProviderTokenEndpointAuth client_secret_basic",
        "OIDCClientID %s" % args.client_id,
        "OIDCClientSecret %s" % args.secret,
        "OIDCRedirectURI %s/protected/redirect_uri" % base,
        "OIDCCryptoPassphrase %s" % secrets.token_hex(16),
        'OIDCScope "openid email"',
        "OIDCPKCEMethod S256",
        "OIDCInfoHook iat access_token id_token userinfo session",
        "<Location /protected>",
        "  AuthType openid-connect",
        "  Require valid-user",
        # Protected pages are not kept by the browser: without this, Chromium may show a heuristically fresh copy
        # of /protected/ (index.html has a Last-Modified and no Cache-Control) after the session ended, when the
        # file was written long enough before its first fetch, as on a loaded machine.
        '  Header always set Cache-Control "no-store"',
        "</Location>",
        "",
    ])
    conf = os.path.join(args.dir, "httpd.conf")
    with open(conf, "w") as f:
        f.write(config)
    httpd = subprocess.Popen(["/usr/sbin/apache2", "-f", conf, "-DFOREGROUND"], stdout=sys.stdout, stderr=subprocess.STDOUT)

    def stop(*_):
        """Apache goes with this script, however it ends (stdin closed, SIGTERM from the test)."""
        httpd.terminate()
        try:
            httpd.wait(timeout=30)
        except subprocess.TimeoutExpired:
            httpd.kill()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # Ready once it answers (bounded; a failed start ends the wait at once).
    deadline = time.monotonic() + 120
    while True:
        if httpd.poll() is not None:
            sys.stdout.write(open(os.path.join(args.dir, "error.log")).read() if os.path.exists(os.path.join(args.dir, "error.log")) else "")
            sys.exit("apache2 exited with %s" % httpd.returncode)
        try:
            urllib.request.urlopen(base + "/signed-out.html", timeout=5).read()
            break
        except OSError:
            if time.monotonic() > deadline:
                httpd.kill()
                sys.exit("apache2 did not answer")
            time.sleep(0.05)
    with open(os.path.join(args.dir, "port.tmp"), "w") as f:
        f.write(str(port))
    os.rename(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
    sys.stdout.flush()
    sys.stdin.read()  # until EOF
    stop()


if __name__ == "__main__":
    main()
