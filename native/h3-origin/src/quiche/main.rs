//! ccb-quiche-origin: the lab HTTP/3 origin on Cloudflare's quiche (reno, cubic, or its BBRv2
//! port), same flags and stats lines as ccb-h3-origin. quiche is sans-I/O: this file owns the
//! UDP socket, timers and pacing; `client.rs` owns one connection.
mod body;
mod client;

use ccb_origin::args;
use client::Client;
use std::collections::{BinaryHeap, HashMap};
use std::io::Write;
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::net::UdpSocket;

/// Length of the connection IDs this server issues.
const CID_LEN: usize = 16;
/// UDP payload limit for what we send (quiche's own examples use 1350).
const MAX_DATAGRAM: usize = 1350;

fn main() {
    let args = match args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("ccb-quiche-origin: {msg}\n{}", args::USAGE);
            std::process::exit(2);
        }
    };
    // One thread: quiche connections are plain state machines driven from a single loop.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    if let Err(msg) = rt.block_on(serve_forever(args)) {
        eprintln!("ccb-quiche-origin: {msg}");
        std::process::exit(1);
    }
}

/// quiche's algorithm names; the stats label is the canonical one.
fn controller(name: &str) -> Result<&'static str, String> {
    match name {
        "reno" | "newreno" => Ok("reno"),
        "cubic" => Ok("cubic"),
        "bbr2" | "bbr" => Ok("bbr2"),
        other => Err(format!(
            "unknown --cc {other:?} (quiche offers reno, cubic, bbr2)"
        )),
    }
}

fn quic_config(args: &args::Args, cc: &str) -> Result<quiche::Config, String> {
    fn e(what: &'static str) -> impl Fn(quiche::Error) -> String {
        move |err| format!("{what}: {err}")
    }
    let mut c = quiche::Config::new(quiche::PROTOCOL_VERSION).map_err(e("quiche config"))?;
    c.load_cert_chain_from_pem_file(&args.cert.to_string_lossy())
        .map_err(e("reading --cert"))?;
    c.load_priv_key_from_pem_file(&args.key.to_string_lossy())
        .map_err(e("reading --key"))?;
    c.set_application_protos(quiche::h3::APPLICATION_PROTOCOL)
        .map_err(e("ALPN"))?;
    c.set_cc_algorithm_name(if cc == "bbr2" { "bbr2_gcongestion" } else { cc })
        .map_err(e("--cc"))?;
    c.enable_pacing(true);
    c.set_max_idle_timeout(30_000);
    c.set_max_recv_udp_payload_size(MAX_DATAGRAM);
    c.set_max_send_udp_payload_size(MAX_DATAGRAM);
    // Receive limits only (we mostly send): enough for browser request streams.
    c.set_initial_max_data(10_000_000);
    c.set_initial_max_stream_data_bidi_local(1_000_000);
    c.set_initial_max_stream_data_bidi_remote(1_000_000);
    c.set_initial_max_stream_data_uni(1_000_000);
    c.set_initial_max_streams_bidi(100);
    c.set_initial_max_streams_uni(100);
    Ok(c)
}

/// A datagram quiche produced, held until its pacing time (quiche spaces packets via `at`).
struct Paced {
    at: Instant,
    seq: u64,
    to: SocketAddr,
    data: Vec<u8>,
}
impl PartialEq for Paced {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Paced {}
impl PartialOrd for Paced {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Paced {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

struct Server {
    socket: UdpSocket,
    local: SocketAddr,
    config: quiche::Config,
    h3_config: quiche::h3::Config,
    root: std::path::PathBuf,
    cc: &'static str,
    clients: HashMap<Vec<u8>, Client>,
    /// Client-chosen initial DCIDs -> our SCID, for retransmitted Initials.
    aliases: HashMap<Vec<u8>, Vec<u8>>,
    queue: BinaryHeap<Paced>,
    seq: u64,
    next_id: u64,
    rng: ring::rand::SystemRandom,
}

async fn serve_forever(args: args::Args) -> Result<(), String> {
    let cc = controller(&args.cc)?;
    let root =
        std::fs::canonicalize(&args.root).map_err(|e| format!("--root {}: {e}", args.root.display()))?;
    let config = quic_config(&args, cc)?;
    let h3_config = quiche::h3::Config::new().map_err(|e| format!("h3 config: {e}"))?;
    let socket = UdpSocket::bind(args.listen)
        .await
        .map_err(|e| format!("bind {}: {e}", args.listen))?;
    let local = socket.local_addr().map_err(|e| e.to_string())?;
    let mut stats = match &args.stats {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("--stats {}: {e}", p.display()))?,
        )),
        None => None,
    };
    let mut srv = Server {
        socket,
        local,
        config,
        h3_config,
        root,
        cc,
        clients: HashMap::new(),
        aliases: HashMap::new(),
        queue: BinaryHeap::new(),
        seq: 0,
        next_id: 0,
        rng: ring::rand::SystemRandom::new(),
    };
    println!("ready {local} cc={cc}");
    let _ = std::io::stdout().flush();

    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).map_err(|e| e.to_string())?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| e.to_string())?;
    let interval = Duration::from_millis(args.stats_interval_ms);
    let mut next_stats = Instant::now() + interval;
    let mut buf = vec![0u8; 65_535];
    let mut stopping: Option<Instant> = None;

    loop {
        let deadline = srv.deadline().map_or(next_stats, |d| d.min(next_stats));
        tokio::select! {
            r = srv.socket.recv_from(&mut buf) => {
                if let Ok((n, from)) = r {
                    srv.on_datagram(&mut buf[..n], from);
                    // Drain what else is queued before sending: fewer, fuller ACK rounds.
                    while let Ok((n, from)) = srv.socket.try_recv_from(&mut buf) {
                        srv.on_datagram(&mut buf[..n], from);
                    }
                }
            }
            _ = tokio::time::sleep_until(deadline.into()) => {}
            _ = term.recv(), if stopping.is_none() => stopping = Some(srv.close_all()),
            _ = int.recv(), if stopping.is_none() => stopping = Some(srv.close_all()),
        }
        let now = Instant::now();
        srv.on_timeouts(now);
        srv.pump_all();
        srv.release(now).await;
        if now >= next_stats {
            if let Some(out) = stats.as_mut() {
                let t = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_secs_f64();
                for c in srv.clients.values_mut() {
                    if !c.reported_closed {
                        let _ = writeln!(out, "{}", c.stats_line(t, srv.cc, srv.local));
                        c.reported_closed = c.is_closing();
                    }
                }
                let _ = out.flush();
            }
            // Skip missed ticks rather than bursting: timestamps stay honest.
            next_stats = (next_stats + interval).max(now + interval / 2);
        }
        // Keep a closed connection until its closed: true line is written (idle timeouts close
        // without a draining period, possibly between two ticks).
        let want_line = stats.is_some();
        srv.clients
            .retain(|_, c| !c.conn.is_closed() || (want_line && !c.reported_closed));
        let aliases = &mut srv.aliases;
        let clients = &srv.clients;
        aliases.retain(|_, scid| clients.contains_key(scid));
        if let Some(t0) = stopping {
            // Give CONNECTION_CLOSE a moment to leave and the stats one more tick.
            if srv.queue.is_empty() && now >= t0 + 2 * interval {
                return Ok(());
            }
        }
    }
}

impl Server {
    fn deadline(&self) -> Option<Instant> {
        let timers = self.clients.values().filter_map(|c| c.conn.timeout_instant());
        timers.chain(self.queue.peek().map(|p| p.at)).min()
    }

    fn on_datagram(&mut self, pkt: &mut [u8], from: SocketAddr) {
        let Ok(hdr) = quiche::Header::from_slice(pkt, CID_LEN) else {
            return;
        };
        let dcid = hdr.dcid.to_vec();
        let key = if self.clients.contains_key(&dcid) {
            dcid
        } else if let Some(k) = self.aliases.get(&dcid) {
            k.clone()
        } else {
            if hdr.ty != quiche::Type::Initial {
                return; // not ours (e.g. a stale connection): drop silently
            }
            if !quiche::version_is_supported(hdr.version) {
                let mut out = [0u8; 1500];
                if let Ok(n) = quiche::negotiate_version(&hdr.scid, &hdr.dcid, &mut out) {
                    self.push(Instant::now(), from, out[..n].to_vec());
                }
                return;
            }
            let mut scid = [0u8; CID_LEN];
            if ring::rand::SecureRandom::fill(&self.rng, &mut scid).is_err() {
                return;
            }
            let cid = quiche::ConnectionId::from_ref(&scid);
            let Ok(conn) = quiche::accept(&cid, None, self.local, from, &mut self.config) else {
                return;
            };
            self.next_id += 1;
            self.clients
                .insert(scid.to_vec(), Client::new(self.next_id, conn));
            self.aliases.insert(dcid, scid.to_vec());
            scid.to_vec()
        };
        let client = self.clients.get_mut(&key).expect("key resolved above");
        let info = quiche::RecvInfo { from, to: self.local };
        if client.conn.recv(pkt, info).is_err() {
            return; // quiche closes the connection itself on fatal errors
        }
        client.on_readable(&self.h3_config, &self.root, self.cc);
    }

    fn on_timeouts(&mut self, now: Instant) {
        for c in self.clients.values_mut() {
            if c.conn.timeout_instant().is_some_and(|t| t <= now) {
                c.conn.on_timeout();
            }
        }
    }

    /// Moves response bytes into quiche and quiche's packets into the pacing queue.
    fn pump_all(&mut self) {
        let mut out = vec![0u8; MAX_DATAGRAM];
        let mut produced = Vec::new();
        for c in self.clients.values_mut() {
            c.pump_bodies();
            loop {
                match c.conn.send(&mut out) {
                    Ok((n, info)) => {
                        c.tx_datagrams += 1;
                        c.tx_bytes += n as u64;
                        produced.push((info.at, info.to, out[..n].to_vec()));
                    }
                    Err(quiche::Error::Done) => break,
                    Err(_) => {
                        let _ = c.conn.close(false, 0x1, b"send failed");
                        break;
                    }
                }
            }
        }
        for (at, to, data) in produced {
            self.push(at, to, data);
        }
    }

    fn push(&mut self, at: Instant, to: SocketAddr, data: Vec<u8>) {
        self.seq += 1;
        self.queue.push(Paced {
            at,
            seq: self.seq,
            to,
            data,
        });
    }

    async fn release(&mut self, now: Instant) {
        while self.queue.peek().is_some_and(|p| p.at <= now) {
            let p = self.queue.pop().expect("peeked");
            // Loopback/veth sends do not block for long; a failed send is a lost packet,
            // which QUIC recovers from like any other loss.
            let _ = self.socket.send_to(&p.data, p.to).await;
        }
    }

    fn close_all(&mut self) -> Instant {
        for c in self.clients.values_mut() {
            let _ = c.conn.close(true, 0x100, b"shutdown"); // H3_NO_ERROR
        }
        Instant::now()
    }
}
