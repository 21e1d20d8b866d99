//! quinn/h3 request handling on top of the shared router (`ccb_origin::route`).
use bytes::Bytes;
use ccb_origin::route::{self, Target};
use h3::server::RequestStream;
use http::{Method, Request, Response};
use std::path::PathBuf;
use tokio::io::AsyncReadExt;

pub type Stream = RequestStream<h3_quinn::BidiStream<Bytes>, Bytes>;

const CHUNK: usize = 64 * 1024;

pub struct Site {
    pub root: PathBuf, // canonical
    pub cc: &'static str,
    block: Bytes,
}

impl Site {
    pub fn new(root: PathBuf, cc: &'static str) -> Self {
        Site {
            root,
            cc,
            block: Bytes::from(vec![b'x'; CHUNK]),
        }
    }
}

pub async fn handle(site: &Site, req: Request<()>, mut stream: Stream) -> Result<(), h3::error::StreamError> {
    let target = route::resolve(&site.root, req.method().as_str(), req.uri().path());
    let (status, ct, len) = match &target {
        Target::Synthetic(n) => (200, "application/octet-stream", *n),
        Target::File(_, len, ct) => (200, *ct, *len),
        Target::Error(code, msg) => (*code, "text/plain; charset=utf-8", msg.len() as u64),
    };
    let mut resp = Response::builder().status(status);
    for (name, value) in route::common_headers(ct, len, site.cc) {
        resp = resp.header(name, value);
    }
    stream
        .send_response(resp.body(()).expect("valid static headers"))
        .await?;
    if req.method() != Method::HEAD {
        send_body(site, &mut stream, target).await?;
    }
    stream.finish().await
}

async fn send_body(site: &Site, stream: &mut Stream, target: Target) -> Result<(), h3::error::StreamError> {
    match target {
        Target::Error(_, msg) => stream.send_data(Bytes::from_static(msg.as_bytes())).await?,
        Target::Synthetic(mut left) => {
            while left > 0 {
                let n = left.min(CHUNK as u64) as usize;
                stream.send_data(site.block.slice(..n)).await?;
                left -= n as u64;
            }
        }
        Target::File(path, mut left, _) => {
            // Opening can fail after resolve (file removed): the client then sees a short body.
            let Ok(mut f) = tokio::fs::File::open(&path).await else {
                return Ok(());
            };
            let mut buf = vec![0u8; CHUNK];
            while left > 0 {
                let n = match f.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                stream.send_data(Bytes::copy_from_slice(&buf[..n])).await?;
                left = left.saturating_sub(n as u64);
            }
        }
    }
    Ok(())
}
