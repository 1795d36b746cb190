"""Serves a folder over HTTP on a free loopback port; prints the port, then serves until killed."""

import functools
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


handler = functools.partial(QuietHandler, directory=sys.argv[1])
server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
