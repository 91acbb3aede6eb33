//! A loopback HTTP/1.1 server for the tests that need one (remote sources,
//! the checkpoint Hub): one thread per connection, `Connection: close`, every
//! request logged. Never the real network.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One request the server saw.
#[derive(Debug, Clone)]
pub struct Req {
    /// The request path.
    pub path: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
}

impl Req {
    /// A header's value by its lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response: status, extra headers, body.
pub struct Resp {
    /// The status code.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// A 200 with this body.
pub fn ok(body: impl Into<Vec<u8>>) -> Resp {
    Resp {
        status: 200,
        headers: vec![],
        body: body.into(),
    }
}

/// A response of this status with a short body.
pub fn status(code: u16) -> Resp {
    Resp {
        status: code,
        headers: vec![],
        body: format!("status {code}").into_bytes(),
    }
}

type Handler = Arc<dyn Fn(&Req, usize) -> Resp + Send + Sync>;

/// A loopback HTTP/1.1 server: one thread per connection, `Connection: close`.
pub struct Server {
    /// The port it listens on (127.0.0.1).
    pub port: u16,
    log: Arc<Mutex<Vec<Req>>>,
}

impl Server {
    /// Serves `handler(request, how many earlier requests had this path)`.
    pub fn start(handler: impl Fn(&Req, usize) -> Resp + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let log: Arc<Mutex<Vec<Req>>> = Arc::default();
        let handler: Handler = Arc::new(handler);
        let l2 = log.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (log, handler) = (l2.clone(), handler.clone());
                std::thread::spawn(move || serve_one(stream, &log, &handler));
            }
        });
        Server { port, log }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The requests seen so far, in order.
    pub fn requests(&self) -> Vec<Req> {
        self.log.lock().unwrap().clone()
    }

    /// The paths of the requests seen so far.
    pub fn paths(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.path).collect()
    }
}

fn serve_one(mut stream: TcpStream, log: &Mutex<Vec<Req>>, handler: &Handler) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let text = String::from_utf8_lossy(&buf).to_string();
    let mut lines = text.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("/")
        .to_string();
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let req = Req { path, headers };
    let seen = {
        let mut log = log.lock().unwrap();
        let n = log.iter().filter(|r| r.path == req.path).count();
        log.push(req.clone());
        n
    };
    let resp = handler(&req, seen);
    let mut head = format!(
        "HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\n",
        resp.status,
        if resp.status == 304 {
            0
        } else {
            resp.body.len()
        }
    );
    for (k, v) in &resp.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    if resp.status != 304 {
        let _ = stream.write_all(&resp.body);
    }
    let _ = stream.flush();
}
