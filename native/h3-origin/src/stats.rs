//! Server-side ground truth: one JSON line per live connection every interval.
use crate::cc;
use serde_json::json;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

struct Tracked {
    id: u64,
    conn: quinn::Connection,
}

/// Connections the sampler should report on; handlers register them once the handshake ends.
#[derive(Default, Clone)]
pub struct Registry {
    inner: Arc<Mutex<(u64, Vec<Tracked>)>>,
}

impl Registry {
    pub fn add(&self, conn: quinn::Connection) -> u64 {
        let mut g = self.inner.lock().unwrap();
        g.0 += 1;
        let id = g.0;
        g.1.push(Tracked { id, conn });
        id
    }
}

pub struct Sampler {
    pub registry: Registry,
    pub cc: &'static str,
    pub local: SocketAddr,
    pub out: std::io::BufWriter<std::fs::File>,
}

impl Sampler {
    /// Runs until the task is dropped. A tick writes and flushes every line at once, so a
    /// reader (or a killed process) never sees a half-written batch beyond the last line.
    pub async fn run(mut self, every: Duration) {
        let mut tick = tokio::time::interval(every);
        // Skip (not burst) after a stall: the timestamps stay honest and the file stays small.
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tick.tick().await;
            self.sample();
        }
    }

    pub fn sample(&mut self) {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        let (cc, local, out) = (self.cc, self.local, &mut self.out);
        let mut g = self.registry.inner.lock().unwrap();
        g.1.retain(|tr| {
            let closed = tr.conn.close_reason().is_some();
            let _ = writeln!(out, "{}", line(t, cc, local, tr, closed));
            // Report a closed connection once (with closed: true), then forget it.
            !closed
        });
        drop(g);
        let _ = self.out.flush();
    }
}

fn line(t: f64, cc: &str, local: SocketAddr, tr: &Tracked, closed: bool) -> serde_json::Value {
    let s = tr.conn.stats();
    let obs = cc::observe(tr.conn.congestion_state());
    let ms = |d: Duration| (d.as_secs_f64() * 1e6).round() / 1e3;
    json!({
        "t": t,
        "stack": "quinn",
        "conn": tr.id,
        "remote": tr.conn.remote_address().to_string(),
        "local": local.to_string(),
        "cc": cc,
        "cwnd": s.path.cwnd,
        "bytes_in_flight": obs.as_ref().map(|o| o.in_flight_est),
        "bytes_in_flight_at_ack": obs.as_ref().map(|o| o.in_flight_at_ack),
        "ssthresh": obs.as_ref().and_then(|o| o.metrics.ssthresh),
        "pacing_rate_bps": obs.as_ref().and_then(|o| o.metrics.pacing_rate),
        "rtt_ms": ms(s.path.rtt),
        "min_rtt_ms": ms(s.path.min_rtt),
        "sent_packets": s.path.sent_packets,
        "lost_packets": s.path.lost_packets,
        "lost_bytes": s.path.lost_bytes,
        "congestion_events": s.path.congestion_events,
        "mtu": s.path.current_mtu,
        "udp_tx_bytes": s.udp_tx.bytes,
        "udp_tx_datagrams": s.udp_tx.datagrams,
        "udp_rx_bytes": s.udp_rx.bytes,
        "closed": closed,
    })
}
