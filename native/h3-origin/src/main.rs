//! ccb-h3-origin: a lab HTTP/3 origin whose congestion controller is chosen on the command
//! line, writing the controller's state as ground truth for ccbrowse's classifier.
mod cc;
mod serve;
mod stats;
mod tls;

use ccb_origin::args;
use quinn::crypto::rustls::QuicServerConfig;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

fn main() {
    let args = match args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("ccb-h3-origin: {msg}\n{}", args::USAGE);
            std::process::exit(2);
        }
    };
    // Two worker threads: the lab machines have two cores shared with the shaper and browser.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    if let Err(msg) = rt.block_on(serve_forever(args)) {
        eprintln!("ccb-h3-origin: {msg}");
        std::process::exit(1);
    }
}

/// The label written to stats; "reno" is accepted so one lab vocabulary works for every stack.
fn controller(name: &str) -> Result<(cc::Kind, &'static str), String> {
    match name {
        "newreno" | "reno" => Ok((cc::Kind::NewReno, "newreno")),
        "cubic" => Ok((cc::Kind::Cubic, "cubic")),
        "bbr" => Ok((cc::Kind::Bbr, "bbr")),
        other => Err(format!(
            "unknown --cc {other:?} (quinn offers newreno, cubic, bbr)"
        )),
    }
}

async fn serve_forever(args: args::Args) -> Result<(), String> {
    let (kind, label) = controller(&args.cc)?;
    let root =
        std::fs::canonicalize(&args.root).map_err(|e| format!("--root {}: {e}", args.root.display()))?;
    let tls = tls::server_config(&args.cert, &args.key)?;
    let crypto = QuicServerConfig::try_from(tls).map_err(|e| format!("QUIC TLS config: {e}"))?;

    let mut transport = quinn::TransportConfig::default();
    transport.congestion_controller_factory(Arc::new(cc::ObservedFactory::new(kind)));
    // Without this quinn hands the kernel up to 64 KB GSO batches and captures on the
    // sending host show super-datagrams instead of what crosses the wire.
    transport.enable_segmentation_offload(false);
    let mut server_config = quinn::ServerConfig::with_crypto(Arc::new(crypto));
    server_config.transport_config(Arc::new(transport));

    let endpoint = quinn::Endpoint::server(server_config, args.listen)
        .map_err(|e| format!("bind {}: {e}", args.listen))?;
    let local = endpoint.local_addr().map_err(|e| e.to_string())?;

    let registry = stats::Registry::default();
    let sampler = match &args.stats {
        Some(path) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("--stats {}: {e}", path.display()))?;
            let s = stats::Sampler {
                registry: registry.clone(),
                cc: label,
                local,
                out: std::io::BufWriter::new(f),
            };
            Some(tokio::spawn(s.run(Duration::from_millis(args.stats_interval_ms))))
        }
        None => None,
    };

    let site = Arc::new(serve::Site::new(root, label));
    println!("ready {local} cc={}", label);
    let _ = std::io::stdout().flush();

    let accept = {
        let endpoint = endpoint.clone();
        async move {
            while let Some(incoming) = endpoint.accept().await {
                let (site, registry) = (site.clone(), registry.clone());
                tokio::spawn(async move {
                    if let Err(e) = connection(incoming, site, registry).await {
                        eprintln!("connection ended: {e}");
                    }
                });
            }
        }
    };
    tokio::select! {
        _ = accept => {}
        _ = shutdown_signal() => {}
    }
    endpoint.close(0u32.into(), b"shutdown");
    if let Some(task) = sampler {
        // Let the sampler record the closed connections once more, then stop it.
        tokio::time::sleep(Duration::from_millis(2 * args.stats_interval_ms)).await;
        task.abort();
    }
    Ok(())
}

async fn connection(
    incoming: quinn::Incoming,
    site: Arc<serve::Site>,
    registry: stats::Registry,
) -> Result<(), String> {
    let conn = incoming.await.map_err(|e| format!("handshake: {e}"))?;
    registry.add(conn.clone());
    let mut h3 = h3::server::builder()
        .build::<_, bytes::Bytes>(h3_quinn::Connection::new(conn))
        .await
        .map_err(|e| format!("h3 setup: {e}"))?;
    loop {
        match h3.accept().await {
            Ok(Some(resolver)) => {
                let site = site.clone();
                tokio::spawn(async move {
                    match resolver.resolve_request().await {
                        Ok((req, stream)) => {
                            let _ = serve::handle(&site, req, stream).await;
                        }
                        Err(e) => eprintln!("bad request: {e}"),
                    }
                });
            }
            Ok(None) => return Ok(()),
            // The browser closing the connection is the normal end, not an error worth a log line.
            Err(e) if e.is_h3_no_error() => return Ok(()),
            Err(e) => return Err(format!("h3: {e}")),
        }
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
