"""A real HTTP server that honours Range requests (rangehttpserver from PyPI) on 127.0.0.1,
serving the directory argv[1]; prints the port it listens on, then serves until killed."""

import functools
import http.server
import sys

from RangeHTTPServer import RangeRequestHandler


class Quiet(RangeRequestHandler):
    def log_message(self, *args):
        pass


handler = functools.partial(Quiet, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
