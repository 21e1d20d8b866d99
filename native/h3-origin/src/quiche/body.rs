//! One response in progress on a quiche HTTP/3 stream. quiche accepts only what flow and
//! congestion control allow right now, so the response keeps its place and is pumped again
//! whenever the connection may have room.
use ccb_origin::route::Target;
use quiche::h3::{self, Header};
use std::io::Read;

const CHUNK: usize = 64 * 1024;

enum Source {
    Synthetic(u64),
    File(std::fs::File, u64),
    Text(&'static [u8]),
    Done,
}

pub struct Response {
    headers: Option<Vec<Header>>,
    source: Source,
    chunk: Vec<u8>,
    off: usize,
    fin_sent: bool,
}

pub enum Progress {
    /// Blocked by flow/congestion control: pump again later.
    Blocked,
    /// Everything including FIN was handed to quiche.
    Finished,
}

impl Response {
    pub fn new(target: Target, head_only: bool, headers: Vec<Header>) -> Self {
        let source = match target {
            _ if head_only => Source::Done,
            Target::Synthetic(n) => Source::Synthetic(n),
            Target::File(path, len, _) => match std::fs::File::open(path) {
                Ok(f) => Source::File(f, len),
                Err(_) => Source::Done, // removed since resolve: the client sees a short body
            },
            Target::Error(_, msg) => Source::Text(msg.as_bytes()),
        };
        Response {
            headers: Some(headers),
            source,
            chunk: Vec::new(),
            off: 0,
            fin_sent: false,
        }
    }

    fn refill(&mut self) {
        self.off = 0;
        self.chunk.clear();
        match &mut self.source {
            Source::Synthetic(left) => {
                let n = (*left).min(CHUNK as u64) as usize;
                self.chunk.resize(n, b'x');
                *left -= n as u64;
            }
            Source::File(f, left) => {
                self.chunk.resize(CHUNK, 0);
                let n = f.read(&mut self.chunk).unwrap_or(0).min(*left as usize);
                self.chunk.truncate(n);
                // A file that shrank or failed ends the body early rather than spinning.
                *left = if n == 0 { 0 } else { *left - n as u64 };
            }
            Source::Text(t) => {
                self.chunk.extend_from_slice(t);
                self.source = Source::Done;
            }
            Source::Done => {}
        }
    }

    fn exhausted(&self) -> bool {
        matches!(
            self.source,
            Source::Done | Source::Synthetic(0) | Source::File(_, 0)
        )
    }

    pub fn pump<F: quiche::BufFactory>(
        &mut self,
        h3c: &mut h3::Connection,
        conn: &mut quiche::Connection<F>,
        sid: u64,
    ) -> Result<Progress, h3::Error> {
        if let Some(headers) = &self.headers {
            let fin = self.exhausted();
            match h3c.send_response(conn, sid, headers, fin) {
                Ok(()) => self.headers = None,
                Err(h3::Error::StreamBlocked | h3::Error::Done) => return Ok(Progress::Blocked),
                Err(e) => return Err(e),
            }
            if fin {
                return Ok(Progress::Finished);
            }
        }
        while !self.fin_sent {
            if self.off == self.chunk.len() {
                self.refill();
            }
            let last = self.exhausted();
            let rest = &self.chunk[self.off..];
            match h3c.send_body(conn, sid, rest, last) {
                Ok(n) => {
                    self.off += n;
                    if self.off < self.chunk.len() {
                        return Ok(Progress::Blocked);
                    }
                    self.fin_sent = last;
                }
                Err(h3::Error::Done) => return Ok(Progress::Blocked),
                Err(e) => return Err(e),
            }
        }
        Ok(Progress::Finished)
    }
}
