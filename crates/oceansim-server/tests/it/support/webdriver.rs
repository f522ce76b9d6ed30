//! Headless Chromium driven through ChromeDriver (W3C WebDriver over
//! HTTP/1.1 on loopback): just what the viewer's browser tests need — open
//! a page, run a script, click, take a screenshot. Shared by the browser
//! test and the viewer bench.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where the browser and its driver are (Debian's packages by default;
/// `OCEANSIM_CHROMIUM` and `OCEANSIM_CHROMEDRIVER` override).
pub fn browser_paths() -> Option<(PathBuf, PathBuf)> {
    let pick = |var: &str, default: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(default))
    };
    let chromium = pick("OCEANSIM_CHROMIUM", "/usr/bin/chromium");
    let driver = pick("OCEANSIM_CHROMEDRIVER", "/usr/bin/chromedriver");
    (chromium.exists() && driver.exists()).then_some((chromium, driver))
}

/// A ChromeDriver process with one headless Chromium session.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    _profile: tempfile::TempDir,
}

/// The W3C key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// One HTTP/1.1 exchange with `Connection: close`; returns the body.
fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> std::io::Result<Value> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    let payload = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{payload}",
        payload.len()
    )?;
    // Read the head, then exactly the body the head announces (the driver
    // may keep the connection open whatever the request asked).
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 << 10];
    let split = loop {
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            return Err(std::io::Error::other("closed before the HTTP head ended"));
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let mut body = raw[split + 4..].to_vec();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let chunked = head.contains("transfer-encoding: chunked");
    loop {
        let complete = match length {
            Some(n) => body.len() >= n,
            None if chunked => body.windows(5).any(|w| w == b"0\r\n\r\n"),
            None => false,
        };
        if complete {
            break;
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    if let Some(n) = length {
        body.truncate(n);
    } else if chunked {
        body = dechunk(&body);
    }
    if body.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&body).map_err(std::io::Error::other)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = eol + 2;
        out.extend_from_slice(&b[start..(start + size).min(b.len())]);
        b = &b[(start + size + 2).min(b.len())..];
    }
    out
}

impl Browser {
    /// Starts ChromeDriver and a headless Chromium window of 1280 × 800
    /// (sandbox, GPU and background networking off, as this machine's
    /// closed network needs). `None` when either is not installed.
    pub fn start() -> Option<Browser> {
        let (chromium, driver_path) = browser_paths()?;
        let port = free_port();
        let driver = Command::new(&driver_path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while http(port, "GET", "/status", None).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not come up");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().expect("a profile dir");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                    "--window-size=1280,800",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            },
        }}});
        let mut b = Browser {
            driver,
            port,
            session: String::new(),
            _profile: profile,
        };
        let created = b.call("POST", "/session", Some(caps));
        b.session = created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {created}"))
            .to_owned();
        Some(b)
    }

    /// A WebDriver command; panics with the driver's error.
    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let reply = http(self.port, method, path, body.as_ref())
            .unwrap_or_else(|e| panic!("webdriver {method} {path}: {e}"));
        if let Some(err) = reply["value"].get("error") {
            panic!(
                "webdriver {method} {path}: {err}: {}",
                reply["value"]["message"]
            );
        }
        reply["value"].clone()
    }

    fn at(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    /// Opens `url`.
    pub fn goto(&self, url: &str) {
        self.call("POST", &self.at("/url"), Some(json!({ "url": url })));
    }

    /// Runs `script` (a function body: `return ...;`) in the page.
    pub fn exec(&self, script: &str) -> Value {
        self.call(
            "POST",
            &self.at("/execute/sync"),
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Polls `script` until it returns something other than null/false.
    pub fn wait_for(&self, script: &str, timeout: Duration, what: &str) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let v = self.exec(script);
            if !(v.is_null() || v == json!(false)) {
                return v;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The WebDriver id of the element matching a CSS selector.
    fn element(&self, css: &str) -> String {
        let el = self.call(
            "POST",
            &self.at("/element"),
            Some(json!({"using": "css selector", "value": css})),
        );
        el[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {el}"))
            .to_owned()
    }

    /// Clicks the element matching a CSS selector.
    pub fn click(&self, css: &str) {
        let id = self.element(css);
        self.call(
            "POST",
            &self.at(&format!("/element/{id}/click")),
            Some(json!({})),
        );
    }

    /// A PNG screenshot of the element matching a CSS selector (scrolled
    /// into view first), its pixels one per CSS pixel at this window's
    /// device pixel ratio of 1.
    pub fn element_screenshot(&self, css: &str) -> Vec<u8> {
        use base64::Engine as _;
        let id = self.element(css);
        let b64 = self.call("GET", &self.at(&format!("/element/{id}/screenshot")), None);
        base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().expect("base64"))
            .expect("a PNG")
    }

    /// A PNG screenshot of the window.
    pub fn screenshot(&self) -> Vec<u8> {
        use base64::Engine as _;
        let b64 = self.call("GET", &self.at("/screenshot"), None);
        base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().expect("base64"))
            .expect("a PNG")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = http(
                self.port,
                "DELETE",
                &format!("/session/{}", self.session),
                None,
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
