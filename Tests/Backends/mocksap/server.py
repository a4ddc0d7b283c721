"""The SAP Gateway (OData V2) back end of the integration tests: mock-sap (pinned in
../requirements.txt), on loopback, with its own seeded S/4HANA-shaped data.

    python server.py [--port 0] [--no-csrf] [--require-if-match] [--client 100] [--auth USER:PASSWORD]

Prints `PORT <n>` on its first line once it listens, then serves until killed. The data lives in
memory: a restart is a reset (`POST /_mock/reset` resets it too). Its control plane
(`/_mock/faults`, `/_mock/requests`) is what the tests use to inject faults and to read what the
client sent.
"""

import argparse
import sys

from mocksap.server import Config, make_server


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-csrf", action="store_true")
    parser.add_argument("--require-if-match", action="store_true")
    parser.add_argument("--client", default="100")
    parser.add_argument("--auth", default=None, help="require HTTP basic authentication")
    args = parser.parse_args()
    config = Config(port=args.port, db_path=":memory:", csrf=not args.no_csrf, quiet=True,
                    require_if_match=args.require_if_match, client=args.client,
                    basic_auth=args.auth)
    httpd = make_server(config)
    print("PORT %d" % httpd.server_address[1], flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
