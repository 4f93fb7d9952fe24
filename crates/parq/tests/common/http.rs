//! A real HTTP server on 127.0.0.1 that honours Range requests (`rangehttpserver` from PyPI,
//! `read_async.py`) and a small HTTP/1.1 range client of it, an [`AsyncRangeRead`] for the
//! async reader's tests.

use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use bytes::Bytes;
use parq::read::AsyncRangeRead;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::python;

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// An HTTP/1.1 client of one URL path on 127.0.0.1, one connection per request.
pub struct Http {
    pub port: u16,
    pub path: String,
}

impl Http {
    /// The response to `request` (head lines and body), checked for `status`.
    async fn call(
        &self,
        method: &str,
        range: Option<&Range<u64>>,
        status: u16,
    ) -> parq::Result<(String, Vec<u8>)> {
        let io = |e: std::io::Error| parq::Error::new(parq::ErrorKind::Io(e.to_string()));
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))
            .await
            .map_err(io)?;
        let mut req = format!(
            "{method} /{} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n",
            self.path
        );
        if let Some(r) = range {
            req.push_str(&format!("Range: bytes={}-{}\r\n", r.start, r.end - 1));
        }
        req.push_str("\r\n");
        stream.write_all(req.as_bytes()).await.map_err(io)?;
        let mut all = Vec::new();
        stream.read_to_end(&mut all).await.map_err(io)?;
        let split = all
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or_else(|| parq::Error::new(parq::ErrorKind::Io("no HTTP head".into())))?;
        let head = String::from_utf8_lossy(&all[..split]).to_string();
        let body = all[split + 4..].to_vec();
        let code: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        if code != status {
            return Err(parq::Error::new(parq::ErrorKind::Io(format!(
                "HTTP {code}, not {status}: {head}"
            ))));
        }
        Ok((head, body))
    }
}

fn content_length(head: &str) -> Option<u64> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("content-length")
            .then(|| v.trim().parse().ok())?
    })
}

impl AsyncRangeRead for Http {
    async fn file_len(&self) -> parq::Result<u64> {
        let (head, _) = self.call("HEAD", None, 200).await?;
        content_length(&head)
            .ok_or_else(|| parq::Error::new(parq::ErrorKind::Io("no length".into())))
    }

    async fn read_ranges(&self, ranges: Vec<Range<u64>>) -> parq::Result<Vec<Bytes>> {
        let mut out = Vec::with_capacity(ranges.len());
        for r in &ranges {
            let (head, body) = self.call("GET", Some(r), 206).await?;
            assert!(head.contains("Content-Range"), "{head}");
            out.push(Bytes::from(body));
        }
        Ok(out)
    }
}

/// The HTTP server, killed when dropped.
pub struct Server(Child, pub u16);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn serve(dir: &Path) -> Server {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/read_async.py");
    let mut child = Command::new(python())
        .arg(script)
        .arg(dir)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the HTTP server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("port: {line:?}"));
    Server(child, port)
}
