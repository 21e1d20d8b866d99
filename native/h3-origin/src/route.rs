//! URL path -> what to send: `/bytes/N` or a static file under the root. Pure apart from
//! reading file metadata, so every origin binary answers the same way.
use std::path::{Path, PathBuf};

/// Largest body `/bytes/N` will produce (1 GiB): a typo must not stream forever.
pub const MAX_SYNTHETIC: u64 = 1 << 30;

#[derive(Debug)]
pub enum Target {
    /// N bytes of 'x'.
    Synthetic(u64),
    /// A regular file (canonical path inside the root), its length and content type.
    File(PathBuf, u64, &'static str),
    /// An error status with a short plain-text body.
    Error(u16, &'static str),
}

/// `root` must be canonical (see `std::fs::canonicalize`).
pub fn resolve(root: &Path, method: &str, path: &str) -> Target {
    if method != "GET" && method != "HEAD" {
        return Target::Error(405, "only GET and HEAD\n");
    }
    let path = path.split('?').next().unwrap_or("");
    if let Some(n) = path.strip_prefix("/bytes/") {
        return match parse_size(n) {
            Some(n) => Target::Synthetic(n),
            None => Target::Error(
                400,
                "use /bytes/N with N a decimal number of bytes <= 1073741824\n",
            ),
        };
    }
    let Some(rel) = safe_relative(path) else {
        return Target::Error(403, "path refused\n");
    };
    match file_under(root, &rel) {
        Some((full, len)) => {
            let ct = content_type(&full);
            Target::File(full, len, ct)
        }
        None => Target::Error(404, "not found\n"),
    }
}

/// `N` must be plain decimal digits (no sign, no spaces) and at most MAX_SYNTHETIC.
pub fn parse_size(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 12 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u64>().ok().filter(|n| *n <= MAX_SYNTHETIC)
}

/// Turns a URL path into a relative file path, or None when it could escape the root:
/// percent-decoding happens first so `%2e%2e` is caught like `..`.
pub fn safe_relative(path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(path)?;
    let mut rel = PathBuf::new();
    for seg in decoded.split('/') {
        match seg {
            "" | "." => continue,
            ".." => return None,
            s if s.contains('\\') || s.contains('\0') => return None,
            s => rel.push(s),
        }
    }
    Some(rel)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// root/rel (or root/rel/index.html for a directory). The canonical path must still be inside
/// the root, which also refuses symlinks pointing outside it.
fn file_under(root: &Path, rel: &Path) -> Option<(PathBuf, u64)> {
    let mut full = std::fs::canonicalize(root.join(rel)).ok()?;
    if full.is_dir() {
        full = std::fs::canonicalize(full.join("index.html")).ok()?;
    }
    if !full.starts_with(root) {
        return None;
    }
    let meta = std::fs::metadata(&full).ok()?;
    meta.is_file().then(|| (full, meta.len()))
}

pub fn content_type(p: &Path) -> &'static str {
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "wasm" => "application/wasm",
        "mp4" | "m4v" | "m4s" => "video/mp4",
        "m4a" => "audio/mp4",
        "webm" => "video/webm",
        "mp3" => "audio/mpeg",
        "mpd" => "application/dash+xml",
        "m3u8" => "application/vnd.apple.mpegurl",
        "ts" => "video/mp2t",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// Response headers every origin sends besides :status.
pub fn common_headers(content_type: &str, len: u64, cc: &str) -> Vec<(&'static str, String)> {
    vec![
        ("content-type", content_type.to_string()),
        ("content-length", len.to_string()),
        // Lab runs repeat the same URLs: a cached asset would carry no congestion signal.
        ("cache-control", "no-store".into()),
        ("access-control-allow-origin", "*".into()),
        ("timing-allow-origin", "*".into()),
        ("x-ccb-cc", cc.to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("2000000"), Some(2_000_000));
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("1e6"), None);
        assert_eq!(parse_size("1073741825"), None);
    }

    #[test]
    fn traversal_refused() {
        assert_eq!(safe_relative("/a/b.html"), Some(PathBuf::from("a/b.html")));
        assert_eq!(safe_relative("/"), Some(PathBuf::new()));
        assert_eq!(safe_relative("/../etc/passwd"), None);
        assert_eq!(safe_relative("/a/%2e%2e/%2E%2E/x"), None);
        assert_eq!(safe_relative("/a%5c..%5cx"), None);
        assert_eq!(safe_relative("/bad%zz"), None);
    }

    #[test]
    fn resolves() {
        let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
        assert!(matches!(resolve(&root, "POST", "/"), Target::Error(405, _)));
        assert!(matches!(
            resolve(&root, "GET", "/bytes/10?x=1"),
            Target::Synthetic(10)
        ));
        assert!(matches!(resolve(&root, "GET", "/bytes/x"), Target::Error(400, _)));
        assert!(matches!(
            resolve(&root, "GET", "/src/%2e%2e%2f%2e%2e%2fx"),
            Target::Error(403, _)
        ));
        assert!(matches!(resolve(&root, "GET", "/nope"), Target::Error(404, _)));
        match resolve(&root, "HEAD", "/Cargo.toml") {
            Target::File(p, len, ct) => {
                assert!(p.ends_with("Cargo.toml") && len > 0);
                assert_eq!(ct, "application/octet-stream");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            content_type(Path::new("x/INDEX.HTML")),
            "text/html; charset=utf-8"
        );
        assert_eq!(content_type(Path::new("seg.m4s")), "video/mp4");
    }
}
