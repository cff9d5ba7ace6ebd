//! A small HTTP/1.1 server on 127.0.0.1, for the install rehearsals that must not leave the
//! machine: a local cargo registry (tests/install) and the download location of Julia artifacts
//! (tests/julia). The port is chosen by the system; one request per connection
//! (`Connection: close`), each on its own thread; bodies are read by `Content-Length`. Dropping
//! the server stops it.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a connection may sit idle: a stuck client costs a thread, never the test.
const IO_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest request body accepted (a published crate is well under it).
const MAX_BODY: usize = 64 << 20;

/// One request.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `PUT`, ...
    pub method: String,
    /// The request target without its query string.
    pub path: String,
    /// The headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body (empty without `Content-Length`).
    pub body: Vec<u8>,
}

impl Request {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One response.
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// `200 OK` with `body`.
    pub fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status: 200,
            content_type,
            body: body.into(),
        }
    }

    /// An error status with a one-line text body.
    pub fn error(status: u16, message: &str) -> Response {
        Response {
            status,
            content_type: "text/plain",
            body: format!("{message}\n").into_bytes(),
        }
    }

    fn reason(&self) -> &'static str {
        match self.status {
            200 => "OK",
            400 => "Bad Request",
            404 => "Not Found",
            405 => "Method Not Allowed",
            409 => "Conflict",
            _ => "Error",
        }
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// A running server; stops when dropped.
pub struct Server {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts serving `handler` on a free port of 127.0.0.1.
    pub fn start(handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("the listener's address");
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let accept = {
            let (log, stop) = (log.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (handler, log) = (handler.clone(), log.clone());
                    std::thread::spawn(move || serve(stream, &*handler, &log));
                }
            })
        };
        Server {
            addr,
            log,
            stop,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests served so far, as `METHOD /path STATUS` lines.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn serve(stream: TcpStream, handler: &Handler, log: &Mutex<Vec<String>>) {
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let response = match read_request(&mut reader, &mut writer) {
        Ok(request) => {
            let response = handler(&request);
            log.lock().unwrap_or_else(|e| e.into_inner()).push(format!(
                "{} {} {}",
                request.method, request.path, response.status
            ));
            response
        }
        Err(why) => Response::error(400, &why),
    };
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        response.status,
        response.reason(),
        response.content_type,
        response.body.len()
    );
    let _ = writer
        .write_all(head.as_bytes())
        .and_then(|()| writer.write_all(&response.body))
        .and_then(|()| writer.flush());
}

fn read_request(reader: &mut impl BufRead, writer: &mut impl Write) -> Result<Request, String> {
    let mut line = String::new();
    reader
        .read_line(&mut line)
        .map_err(|e| format!("reading the request line: {e}"))?;
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(format!("malformed request line {line:?}"));
    };
    let path = target.split('?').next().unwrap_or(target).to_string();
    let method = method.to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader
            .read_line(&mut line)
            .map_err(|e| format!("reading headers: {e}"))?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| format!("malformed header {line:?}"))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut request = Request {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    let length = match request.header("content-length") {
        Some(v) => v
            .parse::<usize>()
            .map_err(|_| format!("bad Content-Length {v:?}"))?,
        None => 0,
    };
    if length > MAX_BODY {
        return Err(format!("a body of {length} bytes is too large"));
    }
    if request
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        writer
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
            .map_err(|e| format!("writing 100 Continue: {e}"))?;
    }
    request.body.resize(length, 0);
    reader
        .read_exact(&mut request.body)
        .map_err(|e| format!("reading a body of {length} bytes: {e}"))?;
    Ok(request)
}
