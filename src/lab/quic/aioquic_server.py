#!/usr/bin/env python3
"""ccbrowse lab origin on aioquic: HTTP/3 with a chosen congestion controller (reno|cubic).

Same interface and stats format as native/h3-origin (the quinn origin):
  aioquic_server.py --listen IP:PORT --root DIR --cert F --key F --cc reno|cubic
                    [--stats F] [--stats-interval-ms 10]
Serves static files under --root and /bytes/N, prints `ready ...` once listening, and writes one
JSON line per connection every interval to --stats (ground truth for the classifier).

Reads a few private aioquic attributes (recovery and stream internals) that have no public
accessor; requirements.txt pins the aioquic version they were checked against.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import mimetypes
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Iterator
from urllib.parse import unquote_to_bytes

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ConnectionTerminated, ProtocolNegotiated, QuicEvent

MAX_SYNTHETIC = 1 << 30  # /bytes/N cap (1 GiB), same as the quinn origin
CHUNK = 64 * 1024
# Keep at most this much unsent body queued in a QUIC stream: aioquic has no write
# backpressure, so queueing a whole 1 GiB body would hold it all in memory.
HIGH_WATER = 512 * 1024
EXTRA_TYPES = {".mjs": "text/javascript", ".m4s": "video/mp4", ".mpd": "application/dash+xml",
               ".m3u8": "application/vnd.apple.mpegurl", ".woff2": "font/woff2", ".wasm": "application/wasm",
               ".avif": "image/avif", ".webp": "image/webp"}


# ---------- request routing (pure, unit-testable) ----------

def parse_size(text: str) -> int | None:
    """`N` in /bytes/N: plain decimal digits, at most MAX_SYNTHETIC."""
    if not text or len(text) > 12 or not text.isascii() or not text.isdigit():
        return None
    n = int(text)
    return n if n <= MAX_SYNTHETIC else None


def safe_relative(path: str) -> str | None:
    """URL path -> relative file path, or None if it could escape the root (decoded first, so
    %2e%2e counts as ..)."""
    try:
        decoded = unquote_to_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        return None
    parts = []
    for seg in decoded.split("/"):
        if seg in ("", "."):
            continue
        if seg == ".." or "\\" in seg or "\0" in seg:
            return None
        parts.append(seg)
    return "/".join(parts)


def content_type(name: str) -> str:
    ext = os.path.splitext(name)[1].lower()
    ctype = EXTRA_TYPES.get(ext) or mimetypes.guess_type(name)[0] or "application/octet-stream"
    return ctype + "; charset=utf-8" if ctype.startswith("text/") else ctype


@dataclass
class Reply:
    status: int
    ctype: str
    length: int
    chunks: Iterator[bytes] = field(default_factory=lambda: iter(()))


def text_reply(status: int, msg: str) -> Reply:
    body = msg.encode()
    return Reply(status, "text/plain; charset=utf-8", len(body), iter([body]))


def synthetic(n: int) -> Iterator[bytes]:
    block = b"x" * CHUNK
    while n > 0:
        yield block[: min(n, CHUNK)]
        n -= CHUNK


def file_chunks(f) -> Iterator[bytes]:
    with f:
        while chunk := f.read(CHUNK):
            yield chunk


def route(root: str, method: str, path: str) -> Reply:
    if method not in ("GET", "HEAD"):
        return text_reply(405, "only GET and HEAD\n")
    path = path.split("?", 1)[0]
    if path.startswith("/bytes/"):
        n = parse_size(path[len("/bytes/"):])
        if n is None:
            return text_reply(400, "use /bytes/N with N a decimal number of bytes <= 1073741824\n")
        return Reply(200, "application/octet-stream", n, synthetic(n))
    rel = safe_relative(path)
    if rel is None:
        return text_reply(403, "path refused\n")
    full = os.path.realpath(os.path.join(root, rel))
    if os.path.isdir(full):
        full = os.path.realpath(os.path.join(full, "index.html"))
    # realpath resolves symlinks: a link pointing outside the root is refused here.
    if os.path.commonpath([root, full]) != root or not os.path.isfile(full):
        return text_reply(404, "not found\n")
    f = open(full, "rb")
    return Reply(200, content_type(full), os.fstat(f.fileno()).st_size, file_chunks(f))


# ---------- the HTTP/3 protocol ----------

class Counters:
    """What aioquic does not count itself: wraps the controller's sent/lost callbacks."""

    def __init__(self, cc) -> None:
        self.sent_packets = 0
        self.lost_packets = 0
        self.lost_bytes = 0
        self.congestion_events = 0
        self.udp_tx_bytes = 0
        self.udp_tx_datagrams = 0
        self.udp_rx_bytes = 0
        sent, lost = cc.on_packet_sent, cc.on_packets_lost

        def on_packet_sent(*, packet):
            self.sent_packets += 1
            sent(packet=packet)

        def on_packets_lost(*, now, packets):
            packets = list(packets)
            self.lost_packets += len(packets)
            self.lost_bytes += sum(p.sent_bytes for p in packets)
            self.congestion_events += 1
            lost(now=now, packets=packets)

        cc.on_packet_sent, cc.on_packets_lost = on_packet_sent, on_packets_lost


class Origin(QuicConnectionProtocol):
    site: "Site"  # set by Site.protocol_factory

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.http: H3Connection | None = None
        self.bodies: dict[int, Iterator[bytes]] = {}
        self.remote = ""
        self.closed = False
        recovery = self._quic._loss  # private: the only handle on cwnd / bytes in flight
        self.recovery = recovery
        self.counters = Counters(recovery._cc)
        to_send = self._quic.datagrams_to_send

        def counted(now):
            out = to_send(now=now)
            self.counters.udp_tx_datagrams += len(out)
            self.counters.udp_tx_bytes += sum(len(d) for d, _ in out)
            return out

        self._quic.datagrams_to_send = counted
        self.conn_id = self.site.register(self)

    def datagram_received(self, data, addr) -> None:
        self.remote = f"{addr[0]}:{addr[1]}"  # the latest peer address follows a migration
        self.counters.udp_rx_bytes += len(data)
        super().datagram_received(data, addr)

    def quic_event_received(self, event: QuicEvent) -> None:
        if isinstance(event, ProtocolNegotiated) and event.alpn_protocol in H3_ALPN:
            self.http = H3Connection(self._quic)
        elif isinstance(event, ConnectionTerminated):
            self.closed = True
            self.bodies.clear()
        if self.http is None:
            return
        for h3_event in self.http.handle_event(event):
            if isinstance(h3_event, HeadersReceived):
                self.on_request(h3_event)

    def on_request(self, ev: HeadersReceived) -> None:
        h = {k: v for k, v in ev.headers}
        method = h.get(b":method", b"").decode("latin-1")
        reply = route(self.site.root, method, h.get(b":path", b"/").decode("latin-1"))
        head_only = method == "HEAD"
        assert self.http is not None
        self.http.send_headers(ev.stream_id, [
            (b":status", str(reply.status).encode()),
            (b"content-type", reply.ctype.encode()),
            (b"content-length", str(reply.length).encode()),
            # Lab runs repeat URLs: a cached asset would carry no congestion signal.
            (b"cache-control", b"no-store"),
            (b"access-control-allow-origin", b"*"),
            (b"timing-allow-origin", b"*"),
            (b"x-ccb-cc", self.site.cc.encode()),
        ], end_stream=head_only or reply.length == 0)
        if not head_only and reply.length > 0:
            self.bodies[ev.stream_id] = reply.chunks
            self.pump()

    def pump(self) -> None:
        """Tops up each response stream to HIGH_WATER unsent bytes."""
        assert self.http is not None
        for sid in list(self.bodies):
            sender = self._quic._streams[sid].sender  # private: unsent = written - sent
            while sender._buffer_stop - sender.highest_offset < HIGH_WATER:
                chunk = next(self.bodies[sid], None)
                if chunk is None:
                    self.http.send_data(sid, b"", end_stream=True)
                    del self.bodies[sid]
                    break
                self.http.send_data(sid, chunk, end_stream=False)

    def transmit(self) -> None:
        # transmit() runs after every received datagram and timer: the moment ACKs may have
        # drained the queue, so it is where bodies get topped up.
        if self.bodies and not self.closed:
            try:
                self.pump()
            except Exception as exc:  # a stream reset by the peer: stop its body, keep the connection
                print(f"body stopped: {exc!r}", file=sys.stderr)
                self.bodies.clear()
        super().transmit()

    def is_closed(self) -> bool:
        # aioquic emits ConnectionTerminated only after the draining period (3 PTO); a sent or
        # received CONNECTION_CLOSE (private _close_event) already ends the connection for us.
        return self.closed or self._quic._close_event is not None

    def stats_line(self, t: float, local: str) -> dict:
        r, c = self.recovery, self.counters
        return {
            "t": t, "stack": "aioquic", "conn": self.conn_id, "remote": self.remote, "local": local,
            "cc": self.site.cc,
            "cwnd": r.congestion_window,
            "bytes_in_flight": r.bytes_in_flight,  # exact: aioquic's own counter
            "bytes_in_flight_at_ack": None,
            "ssthresh": r._cc.ssthresh,
            "pacing_rate_bps": None,
            "rtt_ms": round(r._rtt_smoothed * 1000, 3),
            "min_rtt_ms": None if r._rtt_min == float("inf") else round(r._rtt_min * 1000, 3),
            "sent_packets": c.sent_packets, "lost_packets": c.lost_packets, "lost_bytes": c.lost_bytes,
            "congestion_events": c.congestion_events,
            "mtu": self._quic._max_datagram_size,
            "udp_tx_bytes": c.udp_tx_bytes, "udp_tx_datagrams": c.udp_tx_datagrams,
            "udp_rx_bytes": c.udp_rx_bytes,
            "closed": self.is_closed(),
        }


class Site:
    def __init__(self, root: str, cc: str) -> None:
        self.root = os.path.realpath(root)
        self.cc = cc
        self.conns: list[Origin] = []
        self.next_id = 0

    def register(self, proto: Origin) -> int:
        self.next_id += 1
        self.conns.append(proto)
        return self.next_id

    def protocol_factory(self):
        site = self

        class Bound(Origin):
            pass

        Bound.site = site
        return Bound

    async def sample_forever(self, path: str, interval_s: float, local: str) -> None:
        """Writes one line per connection on a fixed time grid (late ticks are skipped)."""
        loop = asyncio.get_running_loop()
        with open(path, "a", buffering=1 << 16) as out:
            due = loop.time()
            while True:
                due += interval_s
                now = loop.time()
                if due < now:  # fell behind (GC, busy loop): skip, don't burst
                    due = now + interval_s
                await asyncio.sleep(due - now)
                t = time.time()
                for proto in list(self.conns):
                    line = proto.stats_line(t, local)
                    out.write(json.dumps(line) + "\n")
                    if line["closed"]:  # report a closed connection once, then forget it
                        self.conns.remove(proto)
                out.flush()


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--listen", required=True, help="IP:PORT")
    p.add_argument("--root", required=True)
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--cc", required=True, choices=["reno", "newreno", "cubic"])
    p.add_argument("--stats")
    p.add_argument("--stats-interval-ms", type=int, default=10)
    a = p.parse_args(argv)
    host, _, port = a.listen.rpartition(":")
    if not host or not port.isdigit():
        p.error(f"--listen {a.listen!r}: expected IP:PORT")
    a.host, a.port = host.strip("[]"), int(port)
    a.cc = "reno" if a.cc == "newreno" else a.cc  # one lab vocabulary across stacks
    if not 1 <= a.stats_interval_ms <= 60000:
        p.error("--stats-interval-ms must be between 1 and 60000")
    return a


async def main(argv: list[str]) -> None:
    a = parse_args(argv)
    config = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN, congestion_control_algorithm=a.cc)
    config.load_cert_chain(a.cert, a.key)
    site = Site(a.root, a.cc)
    server = await serve(a.host, a.port, configuration=config, create_protocol=site.protocol_factory())
    local = f"{a.host}:{a.port}"
    sampler = None
    if a.stats:
        sampler = asyncio.create_task(site.sample_forever(a.stats, a.stats_interval_ms / 1000, local))
    print(f"ready {local} cc={a.cc}", flush=True)

    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()
    if sampler:
        await asyncio.sleep(2 * a.stats_interval_ms / 1000)  # record the closes once more
        sampler.cancel()


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1:]))
    except (OSError, ValueError) as exc:
        print(f"aioquic_server: {exc}", file=sys.stderr)
        sys.exit(1)
