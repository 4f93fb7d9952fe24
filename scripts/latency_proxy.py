"""An HTTP proxy for object-store tests and benchmarks: forwards every request to an upstream
server (moto's S3 server) after a fixed delay, as a distant store would answer, and counts
the requests and the bytes it returns.

    python scripts/latency_proxy.py --upstream http://127.0.0.1:PORT --delay-ms 20 [--port N]

prints ``listening on http://127.0.0.1:N`` once ready. ``GET /__proxy/stats`` gives
``{"requests": n, "bytes": b, "by_method": {...}}`` (the counts since the last reset) and
``POST /__proxy/reset`` resets them; neither is delayed or counted. Only 127.0.0.1.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.requests = 0
            self.bytes = 0
            self.by_method: dict[str, int] = {}

    def add(self, method: str, nbytes: int) -> None:
        with self.lock:
            self.requests += 1
            self.bytes += nbytes
            self.by_method[method] = self.by_method.get(method, 0) + 1

    def snapshot(self) -> dict:
        with self.lock:
            return {"requests": self.requests, "bytes": self.bytes, "by_method": dict(self.by_method)}


def make_handler(upstream: urllib.parse.SplitResult, delay: float, stats: Stats):
    local = threading.local()

    def connection() -> http.client.HTTPConnection:
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=120)
            local.conn = conn
        return conn

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _control(self) -> bool:
            if self.path == "/__proxy/stats":
                body = json.dumps(stats.snapshot()).encode()
            elif self.path == "/__proxy/reset":
                stats.reset()
                body = b"{}"
            else:
                return False
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return True

        def _forward(self) -> None:
            if self.path.startswith("/__proxy/") and self._control():
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
            time.sleep(delay)
            for attempt in range(2):
                conn = connection()
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    break
                except (http.client.HTTPException, OSError):
                    conn.close()
                    local.conn = None
                    if attempt:
                        self.send_error(502)
                        return
            stats.add(self.command, len(data))
            self.send_response(resp.status, resp.reason)
            for k, v in resp.getheaders():
                if k.lower() not in _HOP and k.lower() != "content-length":
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

    return Handler


class LatencyProxy:
    """The proxy on a thread of this process (for tests): ``.url``, ``.stats``, ``.close()``."""

    def __init__(self, upstream: str, delay_ms: float, port: int = 0) -> None:
        self.stats = Stats()
        handler = make_handler(urllib.parse.urlsplit(upstream), delay_ms / 1000.0, self.stats)
        self.server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--delay-ms", type=float, default=20.0)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    proxy = LatencyProxy(args.upstream, args.delay_ms, args.port)
    print(f"listening on {proxy.url}", flush=True)
    try:
        proxy.thread.join()
    except KeyboardInterrupt:
        proxy.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
