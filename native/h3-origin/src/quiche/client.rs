//! One quiche connection: its HTTP/3 layer, the responses in progress, and its stats line.
use crate::body::{Progress, Response};
use ccb_origin::route::{self, Target};
use quiche::h3::{self, Header, NameValue};
use serde_json::json;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;

pub struct Client {
    pub id: u64,
    pub conn: quiche::Connection,
    h3: Option<h3::Connection>,
    responses: HashMap<u64, Response>,
    pub tx_datagrams: u64,
    pub tx_bytes: u64,
    /// Set once the line with closed: true has been written.
    pub reported_closed: bool,
}

impl Client {
    pub fn new(id: u64, conn: quiche::Connection) -> Self {
        Client {
            id,
            conn,
            h3: None,
            responses: HashMap::new(),
            tx_datagrams: 0,
            tx_bytes: 0,
            reported_closed: false,
        }
    }

    /// Closing, draining or closed: the connection will carry no more data.
    pub fn is_closing(&self) -> bool {
        self.conn.is_closed() || self.conn.is_draining() || self.conn.local_error().is_some()
    }

    /// After quiche consumed a datagram: set up HTTP/3 once the handshake is done and answer
    /// every request whose headers arrived.
    pub fn on_readable(&mut self, h3_config: &h3::Config, root: &Path, cc: &str) {
        if self.h3.is_none() && self.conn.is_established() {
            match h3::Connection::with_transport(&mut self.conn, h3_config) {
                Ok(h) => self.h3 = Some(h),
                Err(_) => {
                    let _ = self.conn.close(true, 0x101, b"h3 setup failed"); // H3_GENERAL_PROTOCOL_ERROR
                    return;
                }
            }
        }
        let Some(h3c) = self.h3.as_mut() else { return };
        loop {
            match h3c.poll(&mut self.conn) {
                Ok((sid, h3::Event::Headers { list, .. })) => {
                    let field = |name: &[u8]| {
                        list.iter()
                            .find(|h| h.name() == name)
                            .map(|h| String::from_utf8_lossy(h.value()).into_owned())
                            .unwrap_or_default()
                    };
                    let (method, path) = (field(b":method"), field(b":path"));
                    let target = route::resolve(root, &method, &path);
                    let headers = response_headers(&target, cc);
                    self.responses
                        .insert(sid, Response::new(target, method == "HEAD", headers));
                }
                Ok((sid, h3::Event::Data)) => {
                    // GET/HEAD carry no body; read and drop anything a client sends anyway.
                    let mut sink = [0u8; 4096];
                    while h3c.recv_body(&mut self.conn, sid, &mut sink).is_ok() {}
                }
                Ok((sid, h3::Event::Reset(_))) => {
                    self.responses.remove(&sid);
                }
                Ok(_) => {}
                Err(h3::Error::Done) => break,
                Err(_) => break, // quiche has already queued CONNECTION_CLOSE if it was fatal
            }
        }
    }

    pub fn pump_bodies(&mut self) {
        let Some(h3c) = self.h3.as_mut() else { return };
        let conn = &mut self.conn;
        self.responses
            .retain(|&sid, r| matches!(r.pump(h3c, conn, sid), Ok(Progress::Blocked)));
    }

    pub fn stats_line(&self, t: f64, cc: &str, local: SocketAddr) -> serde_json::Value {
        let s = self.conn.stats();
        let path = self.conn.path_stats().find(|p| p.active);
        let ms = |d: std::time::Duration| (d.as_secs_f64() * 1e6).round() / 1e3;
        // quiche 0.30 does not expose bytes in flight: sent - acked - lost over-counts only
        // the few never-acknowledged ACK-only packets.
        let in_flight = s.sent_bytes.saturating_sub(s.acked_bytes + s.lost_bytes);
        json!({
            "t": t,
            "stack": "quiche",
            "conn": self.id,
            "remote": path.as_ref().map(|p| p.peer_addr.to_string()).unwrap_or_default(),
            "local": local.to_string(),
            "cc": cc,
            "cwnd": path.as_ref().map_or(0, |p| p.cwnd),
            "bytes_in_flight": in_flight,
            "bytes_in_flight_at_ack": null,
            "ssthresh": null,
            "pacing_rate_bps": null,
            "delivery_rate_bps": path.as_ref().map(|p| p.delivery_rate * 8),
            "max_bandwidth_bps": path.as_ref().and_then(|p| p.max_bandwidth).map(|b| b * 8),
            "rtt_ms": path.as_ref().map_or(0.0, |p| ms(p.rtt)),
            "min_rtt_ms": path.as_ref().and_then(|p| p.min_rtt).map(ms),
            "sent_packets": s.sent,
            "lost_packets": s.lost,
            "lost_bytes": s.lost_bytes,
            "congestion_events": null,
            "mtu": path.as_ref().map(|p| p.pmtu),
            "udp_tx_bytes": self.tx_bytes,
            "udp_tx_datagrams": self.tx_datagrams,
            "udp_rx_bytes": s.recv_bytes,
            "closed": self.is_closing(),
        })
    }
}

fn response_headers(target: &Target, cc: &str) -> Vec<Header> {
    let (status, ct, len) = match target {
        Target::Synthetic(n) => (200, "application/octet-stream", *n),
        Target::File(_, len, ct) => (200, *ct, *len),
        Target::Error(code, msg) => (*code, "text/plain; charset=utf-8", msg.len() as u64),
    };
    let mut headers = vec![Header::new(b":status", status.to_string().as_bytes())];
    for (name, value) in route::common_headers(ct, len, cc) {
        headers.push(Header::new(name.as_bytes(), value.as_bytes()));
    }
    headers
}
