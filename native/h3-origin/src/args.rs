//! Command-line parsing, hand-written: seven flags do not justify a parser crate's build time.
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug)]
pub struct Args {
    pub listen: SocketAddr,
    pub root: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
    /// Controller name as given; each binary validates it against what its stack offers.
    pub cc: String,
    pub stats: Option<PathBuf>,
    pub stats_interval_ms: u64,
}

pub const USAGE: &str = "usage: PROGRAM --listen IP:PORT --root DIR --cert CERT.pem --key KEY.pem \
--cc NAME [--stats FILE.jsonl] [--stats-interval-ms 10]";

pub fn parse(argv: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let (mut listen, mut root, mut cert, mut key, mut cc, mut stats) = (None, None, None, None, None, None);
    let mut interval = 10u64;
    let mut it = argv.into_iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--listen" => {
                let v = value()?;
                listen = Some(
                    v.parse::<SocketAddr>()
                        .map_err(|e| format!("--listen {v:?}: {e}"))?,
                );
            }
            "--root" => root = Some(PathBuf::from(value()?)),
            "--cert" => cert = Some(PathBuf::from(value()?)),
            "--key" => key = Some(PathBuf::from(value()?)),
            "--cc" => cc = Some(value()?),
            "--stats" => stats = Some(PathBuf::from(value()?)),
            "--stats-interval-ms" => {
                let v = value()?;
                interval = v
                    .parse()
                    .map_err(|_| format!("--stats-interval-ms {v:?} is not a number"))?;
                if !(1..=60_000).contains(&interval) {
                    return Err("--stats-interval-ms must be between 1 and 60000".into());
                }
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let need = |name: &str| format!("missing {name}");
    Ok(Args {
        listen: listen.ok_or_else(|| need("--listen"))?,
        root: root.ok_or_else(|| need("--root"))?,
        cert: cert.ok_or_else(|| need("--cert"))?,
        key: key.ok_or_else(|| need("--key"))?,
        cc: cc.ok_or_else(|| need("--cc"))?,
        stats,
        stats_interval_ms: interval,
    })
}
