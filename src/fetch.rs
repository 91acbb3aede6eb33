//! Remote sources over HTTP (reqwest, rustls): an allow-list of hosts, a disk
//! cache keyed by URL with ETag revalidation, `--offline`, timeouts, bounded
//! retries with backoff, and a size cap. Every failure is an error naming the URL
//! and the cause (exit 2), never a panic.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use reqwest::Url;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::files::{Files, Location, RemoteRef};
use crate::span::{Origin, Source};

/// Hosts reachable without configuration (over https only).
pub const DEFAULT_HOSTS: &[&str] = &[
    "github.com",
    "raw.githubusercontent.com",
    "api.github.com",
    "docs.sglang.io",
    "recipes.vllm.ai",
    "huggingface.co",
];

/// The environment variable that allows more hosts, like `--allow-host`
/// (comma- or space-separated): the user's own setting, so trusted.
pub const ALLOW_HOSTS_ENV: &str = "RECIPE_DRIFT_ALLOW_HOSTS";

/// Hosts that receive `GITHUB_TOKEN` (as `Authorization: Bearer`).
const GITHUB_HOSTS: &[&str] = &["github.com", "raw.githubusercontent.com", "api.github.com"];

/// The largest body accepted, by default (10 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// The most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 5;

/// A spinner on stderr while one request is on the network (`fetching URL`,
/// secrets masked), cleared when dropped; nothing when not shown.
struct Spinner(Option<indicatif::ProgressBar>);

impl Spinner {
    fn start(show: bool, url: &str) -> Spinner {
        Spinner(show.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr(),
            );
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{spinner} {wide_msg} [{elapsed}]")
            {
                bar.set_style(style);
            }
            bar.set_message(format!("fetching {}", crate::secret::value(url)));
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        }))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// How remote files are fetched.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The cache folder (default: the platform cache dir + `recipe-drift`).
    pub cache_dir: Option<PathBuf>,
    /// Use only the cache; a file missing from it is an error.
    pub offline: bool,
    /// Hosts the user allowed besides [`DEFAULT_HOSTS`] (`host` or
    /// `host:port`: `--allow-host`, and [`ALLOW_HOSTS_ENV`] is added by
    /// [`Fetcher::new`]). Trusted: they may be IP addresses and may resolve to
    /// loopback, link-local or private addresses; plain `http` is allowed.
    pub allow_hosts: Vec<String>,
    /// Hosts a config file allowed (`allow-hosts:`): public DNS names only
    /// ([`check_config_host`]), and every address they resolve to must be
    /// public (checked when connecting, [`is_public`]); plain `http` is
    /// allowed.
    pub config_hosts: Vec<String>,
    /// How many times a request is tried (timeouts, connection errors and 5xx
    /// are retried; a refusal by the allow-list or the resolver is final).
    pub tries: u32,
    /// The wait before the first retry; it doubles for each next one.
    pub retry_delay: Duration,
    /// The connect timeout.
    pub connect_timeout: Duration,
    /// The timeout of one whole request.
    pub timeout: Duration,
    /// The largest body accepted.
    pub max_bytes: u64,
    /// Show a spinner on stderr (`fetching URL`) while a request is on the
    /// network; the command decides (a terminal, not CI, no `--no-progress`).
    pub progress: bool,
}

impl Default for FetchOptions {
    fn default() -> Self {
        let ms = |var: &str, default: u64| {
            std::env::var(var)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        FetchOptions {
            cache_dir: None,
            offline: false,
            allow_hosts: Vec::new(),
            config_hosts: Vec::new(),
            tries: 3,
            // For tests only: RECIPE_DRIFT_RETRY_DELAY_MS shortens the backoff.
            retry_delay: Duration::from_millis(ms("RECIPE_DRIFT_RETRY_DELAY_MS", 200)),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_millis(ms("RECIPE_DRIFT_HTTP_TIMEOUT_MS", 30_000)),
            max_bytes: DEFAULT_MAX_BYTES,
            progress: false,
        }
    }
}

/// What the cache keeps beside a body.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Meta {
    url: String,
    #[serde(default)]
    etag: Option<String>,
    /// 200, or 404 for a file known to be absent.
    status: u16,
}

/// Fetches remote files (and reads local ones), with a cache.
pub struct Fetcher {
    opts: FetchOptions,
    cache_dir: Option<PathBuf>,
    client: OnceLock<Result<reqwest::blocking::Client, String>>,
    /// Bodies fetched in this run (`None`: not found).
    memo: Mutex<HashMap<String, Option<Arc<String>>>>,
    /// URLs that failed in this run, with the message: a second read of one
    /// fails the same way without going to the network again.
    failed: Mutex<HashMap<String, String>>,
    /// Hosts (`host[:port]`) that could not be connected to in this run, with
    /// the message: every other URL on one fails with that message at once
    /// (a run that names 100 files on an unreachable host took 100 times the
    /// retries and timeouts). The message is the same whichever URL came
    /// first, so parallel reads print the same bytes.
    unreachable: Mutex<HashMap<String, String>>,
}

impl Fetcher {
    /// A fetcher with these options.
    pub fn new(mut opts: FetchOptions) -> Fetcher {
        if let Ok(more) = std::env::var(ALLOW_HOSTS_ENV) {
            opts.allow_hosts.extend(
                more.split([',', ' ', '\t', '\n'])
                    .filter(|h| !h.trim().is_empty())
                    .map(|h| h.trim().to_string()),
            );
        }
        let cache_dir = opts
            .cache_dir
            .clone()
            .or_else(|| dirs::cache_dir().map(|d| d.join("recipe-drift")));
        Fetcher {
            opts,
            cache_dir,
            client: OnceLock::new(),
            memo: Mutex::new(HashMap::new()),
            failed: Mutex::new(HashMap::new()),
            unreachable: Mutex::new(HashMap::new()),
        }
    }

    /// The URL a remote reference is downloaded from.
    pub fn raw_url(r: &RemoteRef) -> String {
        match r {
            RemoteRef::Url(u) => u.clone(),
            RemoteRef::Github {
                owner,
                repo,
                rev,
                path,
            } => format!("{}/{owner}/{repo}/{rev}/{path}", github_raw_base()),
        }
    }

    /// Fetches a remote file's text; `None` when the server says it does not exist (404).
    pub fn get(&self, r: &RemoteRef) -> Result<Option<Arc<String>>, Error> {
        let url = Self::raw_url(r);
        self.get_url(
            &url,
            matches!(r, RemoteRef::Github { .. }),
            &r.display(),
            None,
        )
    }

    /// Fetches a URL's text like [`Fetcher::get`]; `bearer` (`(host, token)`) is
    /// sent as `Authorization: Bearer` only when the URL's `host[:port]` is that
    /// host (a redirect elsewhere does not carry it).
    pub fn get_url_bearer(
        &self,
        url: &str,
        bearer: Option<(String, String)>,
    ) -> Result<Option<Arc<String>>, Error> {
        self.get_url(url, false, url, bearer.as_ref())
    }

    fn get_url(
        &self,
        url: &str,
        github: bool,
        named: &str,
        bearer: Option<&(String, String)>,
    ) -> Result<Option<Arc<String>>, Error> {
        if let Some(hit) = self.memo.lock().ok().and_then(|m| m.get(url).cloned()) {
            return Ok(hit);
        }
        let fail = |message: String| Error::Remote {
            location: if named == url {
                url.to_string()
            } else {
                format!("{named} ({url})")
            },
            message,
        };
        let parsed = Url::parse(url).map_err(|e| fail(format!("not a valid URL: {e}")))?;
        allowed(&parsed, &self.opts.allow_hosts, &self.opts.config_hosts).map_err(fail)?;
        let cached = self.cache_read(url);
        let body = if self.opts.offline {
            match cached {
                Some((meta, _)) if meta.status == 404 => None,
                Some((_, Some(body))) => Some(Arc::new(body)),
                _ => {
                    return Err(fail(format!(
                        "--offline: not in the cache, or the cached copy is unusable (a symlink, not a regular file, over the size cap of {} bytes, or not UTF-8); run once without --offline to fill it",
                        self.opts.max_bytes
                    )));
                }
            }
        } else {
            let remembered = |m: &Mutex<HashMap<String, String>>, key: &str| {
                m.lock().ok().and_then(|m| m.get(key).cloned())
            };
            let host = host_port(&parsed);
            if let Some(message) =
                remembered(&self.failed, url).or_else(|| remembered(&self.unreachable, &host))
            {
                return Err(fail(message));
            }
            let _spinner = Spinner::start(self.opts.progress, url);
            let mut unreachable = false;
            match self.download(&parsed, url, github, cached, bearer, &mut unreachable) {
                Ok(body) => body,
                Err(message) => {
                    if let Ok(mut m) = self.failed.lock() {
                        m.insert(url.to_string(), message.clone());
                    }
                    if unreachable && let Ok(mut m) = self.unreachable.lock() {
                        m.entry(host).or_insert_with(|| message.clone());
                    }
                    return Err(fail(message));
                }
            }
        };
        if let Ok(mut m) = self.memo.lock() {
            m.insert(url.to_string(), body.clone());
        }
        Ok(body)
    }

    fn client(&self) -> Result<&reqwest::blocking::Client, String> {
        self.client
            .get_or_init(|| {
                let resolver = Arc::new(PublicOnly::new(&self.opts.allow_hosts));
                reqwest::blocking::Client::builder()
                    .user_agent(concat!("recipe-drift/", env!("CARGO_PKG_VERSION")))
                    .connect_timeout(self.opts.connect_timeout)
                    .timeout(self.opts.timeout)
                    // Redirects are followed in `download`, hop by hop.
                    .redirect(reqwest::redirect::Policy::none())
                    // A redirect target does not learn where it was linked from.
                    .referer(false)
                    // Every name is resolved here: only public addresses,
                    // unless the user allowed the host (SSRF, DNS rebinding).
                    .dns_resolver(resolver)
                    .build()
                    .map_err(|e| format!("cannot start the HTTP client: {}", cause(&e)))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Downloads with retries; revalidates a cached body with its ETag.
    /// `unreachable` says whether the last try could not connect to the
    /// first URL's host at all.
    fn download(
        &self,
        parsed: &Url,
        url: &str,
        github: bool,
        cached: Option<(Meta, Option<String>)>,
        bearer: Option<&(String, String)>,
        unreachable: &mut bool,
    ) -> Result<Option<Arc<String>>, String> {
        let client = self.client()?;
        let host = parsed.host_str().unwrap_or("").to_ascii_lowercase();
        let host_port = host_port(parsed);
        let token = std::env::var("GITHUB_TOKEN")
            .ok()
            .filter(|t| !t.trim().is_empty())
            .filter(|_| github || GITHUB_HOSTS.contains(&host.as_str()))
            .or_else(|| {
                bearer
                    .filter(|(h, _)| h.eq_ignore_ascii_case(&host_port))
                    .map(|(_, t)| t.clone())
            });
        let etag = match &cached {
            Some((meta, Some(_))) if meta.status == 200 => meta.etag.clone(),
            _ => None,
        };
        let mut delay = self.opts.retry_delay;
        let tries = self.opts.tries.max(1);
        let mut last = String::new();
        // One remote file gets one timeout in all, its retries included: a
        // server that trickles bytes cannot make each try take the whole
        // timeout again (three tries took 90 s).
        let overall = std::time::Instant::now() + self.opts.timeout;
        let mut made = 0;
        for attempt in 1..=tries {
            if attempt > 1 {
                if std::time::Instant::now() + delay >= overall {
                    break;
                }
                std::thread::sleep(delay);
                delay *= 2;
            }
            made = attempt;
            // The whole request, body included, must end by this time: the
            // client's timeout bounds each read, not the sum of them.
            let deadline = overall;
            // Redirects are followed here, hop by hop: each hop's host must be
            // allowed, and the token goes only to a hop on the first URL's
            // `host:port` (a client that rebuilds every hop's headers from
            // the first request sent it again after a second hop elsewhere).
            let mut at = parsed.clone();
            let mut hops = 0;
            let sent = loop {
                let left = overall.saturating_duration_since(std::time::Instant::now());
                let mut req = client.get(at.clone()).timeout(left);
                let at_host = at.host_str().unwrap_or("").to_ascii_lowercase();
                if at_host == "api.github.com"
                    || (github && at == *parsed && url.contains("/repos/"))
                {
                    req = req.header("Accept", "application/vnd.github+json");
                }
                if let Some(t) = &token
                    && same_origin(&at, parsed)
                {
                    req = req.header("Authorization", format!("Bearer {}", t.trim()));
                }
                if let Some(e) = &etag {
                    req = req.header("If-None-Match", e);
                }
                let resp = match req.send() {
                    Ok(r) => r,
                    Err(e) => break Err(e),
                };
                if !matches!(resp.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
                    break Ok(resp);
                }
                hops += 1;
                if hops > MAX_REDIRECTS {
                    return Err(format!(
                        "network error: too many redirects (more than {MAX_REDIRECTS})"
                    ));
                }
                let next = resp
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .and_then(|l| at.join(l).ok())
                    .ok_or_else(|| {
                        format!(
                            "HTTP {}: a redirect without a usable Location",
                            resp.status()
                        )
                    })?;
                // A refusal is final, never retried.
                allowed(&next, &self.opts.allow_hosts, &self.opts.config_hosts)
                    .map_err(|why| format!("network error: redirected to {next}: {why}"))?;
                at = next;
            };
            *unreachable = matches!(&sent, Err(e) if e.is_connect() && at == *parsed);
            let resp = match sent {
                Ok(r) => r,
                Err(e) => {
                    last = format!("network error: {}", cause(&e));
                    // A refusal (the resolver's public-address check) is
                    // final: only a transient error is worth another try.
                    if e.is_redirect() || e.is_builder() {
                        return Err(last);
                    }
                    if let Some(why) = refusal(&e) {
                        return Err(why);
                    }
                    continue;
                }
            };
            let status = resp.status();
            if status.as_u16() == 304
                && let Some((_, Some(body))) = &cached
            {
                return Ok(Some(Arc::new(body.clone())));
            }
            if status.is_server_error() {
                last = format!("HTTP {status}");
                continue;
            }
            if status.as_u16() == 404 {
                self.cache_write(
                    url,
                    &Meta {
                        url: url.to_string(),
                        etag: None,
                        status: 404,
                    },
                    None,
                );
                return Ok(None);
            }
            if !status.is_success() {
                let hint = if matches!(status.as_u16(), 401 | 403) && github {
                    " (a GitHub rate limit or a private repository: set GITHUB_TOKEN)"
                } else {
                    ""
                };
                return Err(format!("HTTP {status}{hint}"));
            }
            let max = self.opts.max_bytes;
            let too_big = || format!("the response is larger than the size cap of {max} bytes");
            if resp.content_length().is_some_and(|n| n > max) {
                return Err(too_big());
            }
            let new_etag = resp
                .headers()
                .get("etag")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let mut bytes = Vec::new();
            let mut body = resp.take(max.saturating_add(1));
            let mut chunk = [0u8; 16 * 1024];
            let read = loop {
                if std::time::Instant::now() > deadline {
                    break Err(format!(
                        "timed out after {} ms reading the body",
                        self.opts.timeout.as_millis()
                    ));
                }
                match body.read(&mut chunk) {
                    Ok(0) => break Ok(()),
                    Ok(n) => bytes.extend_from_slice(&chunk[..n]),
                    // The request's own timeout (the time left) ends a read
                    // past the deadline: say so, as above.
                    Err(_) if std::time::Instant::now() >= deadline => {
                        break Err(format!(
                            "timed out after {} ms reading the body",
                            self.opts.timeout.as_millis()
                        ));
                    }
                    Err(e) => break Err(format!("network error while reading the body: {e}")),
                }
            };
            if let Err(e) = read {
                last = e;
                continue;
            }
            if bytes.len() as u64 > max {
                return Err(too_big());
            }
            let text = String::from_utf8(bytes)
                .map_err(|_| "the response is not valid UTF-8 text".to_string())?;
            self.cache_write(
                url,
                &Meta {
                    url: url.to_string(),
                    etag: new_etag,
                    status: 200,
                },
                Some(&text),
            );
            return Ok(Some(Arc::new(text)));
        }
        Err(format!(
            "{last} (gave up after {made} tr{}, within the {} ms timeout of one remote file)",
            if made == 1 { "y" } else { "ies" },
            self.opts.timeout.as_millis()
        ))
    }

    fn cache_paths(&self, url: &str) -> Option<(PathBuf, PathBuf)> {
        let dir = self.cache_dir.as_ref()?;
        let hash = Sha256::digest(url.as_bytes());
        let key: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        Some((
            dir.join(format!("{key}.body")),
            dir.join(format!("{key}.meta.json")),
        ))
    }

    /// A cache entry, read with the same size cap as the network; an entry
    /// that is a symlink, not a regular file, over the cap or not UTF-8 is a
    /// miss (it is fetched again and replaced).
    fn cache_read(&self, url: &str) -> Option<(Meta, Option<String>)> {
        let (body, meta) = self.cache_paths(url)?;
        let meta = read_cache_file(&meta, 64 * 1024)?;
        let meta: Meta = serde_json::from_str(&meta).ok()?;
        if meta.url != url {
            return None;
        }
        let body = if meta.status == 200 {
            Some(read_cache_file(&body, self.opts.max_bytes)?)
        } else {
            None
        };
        Some((meta, body))
    }

    /// Writes a cache entry; a cache that cannot be written only costs a refetch.
    fn cache_write(&self, url: &str, meta: &Meta, body: Option<&str>) {
        let Some((body_path, meta_path)) = self.cache_paths(url) else {
            return;
        };
        let Some(dir) = body_path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let write = |path: &PathBuf, text: &str| write_cache_file(path, text);
        if let Some(b) = body
            && write(&body_path, b).is_err()
        {
            return;
        }
        if let Ok(m) = serde_json::to_string_pretty(meta) {
            let _ = write(&meta_path, &m);
        }
    }

    /// The names of the files in a folder of a GitHub repository (contents API).
    fn list_github(&self, r: &RemoteRef) -> Result<Vec<String>, Error> {
        let RemoteRef::Github {
            owner,
            repo,
            rev,
            path,
        } = r
        else {
            return Err(Error::usage(format!(
                "{}: cannot list a folder at a plain URL; name the repository as github:OWNER/REPO@REF",
                r.display()
            )));
        };
        let url = format!(
            "{}/repos/{owner}/{repo}/contents/{path}?ref={rev}",
            github_api_base()
        );
        let named = r.display();
        let body = self
            .get_url(&url, true, &named, None)?
            .ok_or_else(|| Error::Remote {
                location: format!("{named} ({url})"),
                message: "no such folder (HTTP 404)".into(),
            })?;
        let bad = || Error::Remote {
            location: format!("{named} ({url})"),
            message: "the folder listing is not the JSON array GitHub's contents API returns"
                .into(),
        };
        let items: Vec<serde_json::Value> = serde_json::from_str(&body).map_err(|_| bad())?;
        let mut names: Vec<String> = items
            .iter()
            .filter(|i| i.get("type").and_then(|t| t.as_str()) == Some("file"))
            .filter_map(|i| i.get("name").and_then(|n| n.as_str()).map(str::to_string))
            .collect();
        names.sort();
        Ok(names)
    }
}

impl Files for Fetcher {
    fn read(&self, at: &Location) -> Result<Arc<Source>, Error> {
        match at {
            Location::Path(p) => Source::read(p),
            Location::Remote(r) => match self.get(r)? {
                Some(text) => Ok(Arc::new(Source::new(
                    Origin::Url(r.display()),
                    text.as_str().to_string(),
                ))),
                None => {
                    let url = Self::raw_url(r);
                    let at = if url == r.display() {
                        url
                    } else {
                        format!("{} ({url})", r.display())
                    };
                    Err(Error::Remote {
                        location: at,
                        message: "not found (HTTP 404)".into(),
                    })
                }
            },
        }
    }

    fn is_file(&self, at: &Location) -> Result<bool, Error> {
        match at {
            Location::Path(p) => crate::files::is_file(p),
            Location::Remote(r) => Ok(self.get(r)?.is_some()),
        }
    }

    fn list(&self, dir: &Location) -> Result<Vec<String>, Error> {
        match dir {
            Location::Path(_) => crate::files::LocalFiles.list(dir),
            Location::Remote(r) => self.list_github(r),
        }
    }
}

/// Reads a cache file of at most `max` bytes without following a symlink:
/// `None` for a symlink, a non-regular file, one over `max`, or bad UTF-8.
pub(crate) fn read_cache_file(path: &std::path::Path, max: u64) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_file() || meta.len() > max {
        return None;
    }
    let f = std::fs::File::open(path).ok()?;
    // The file opened is the one checked (not a symlink swapped in since).
    let opened = f.metadata().ok()?;
    if (opened.dev(), opened.ino()) != (meta.dev(), meta.ino()) {
        return None;
    }
    let mut bytes = Vec::new();
    f.take(max.saturating_add(1)).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > max {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// Writes a cache file: the text goes to a new temporary file beside it,
/// created exclusively (`O_EXCL`: never through a planted symlink or into a
/// file someone else holds open), then renamed into place (a rename replaces a
/// symlink at `path` itself, never its target).
pub(crate) fn write_cache_file(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut last = std::io::Error::other("no temporary name tried");
    for _ in 0..16 {
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = path.with_extension(format!("tmp{}-{n}-{nonce:08x}", std::process::id()));
        let mut f = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                last = e;
                continue;
            }
            Err(e) => return Err(e),
        };
        let written = f
            .write_all(text.as_bytes())
            .and_then(|_| f.sync_all())
            .and_then(|_| std::fs::rename(&tmp, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        return written;
    }
    Err(last)
}

/// Where `github:` files are downloaded from. `RECIPE_DRIFT_GITHUB_RAW_BASE`
/// overrides it, for tests only.
fn github_raw_base() -> String {
    std::env::var("RECIPE_DRIFT_GITHUB_RAW_BASE")
        .ok()
        .filter(|v| !v.is_empty())
        .map(|v| v.trim_end_matches('/').to_string())
        .unwrap_or_else(|| "https://raw.githubusercontent.com".into())
}

/// Where `github:` folders are listed. `RECIPE_DRIFT_GITHUB_API_BASE`
/// overrides it, for tests only.
fn github_api_base() -> String {
    std::env::var("RECIPE_DRIFT_GITHUB_API_BASE")
        .ok()
        .filter(|v| !v.is_empty())
        .map(|v| v.trim_end_matches('/').to_string())
        .unwrap_or_else(|| "https://api.github.com".into())
}

/// Whether a URL may be fetched, with only user-allowed hosts besides the
/// defaults (`extra`: `--allow-host`): see [`allowed`].
#[allow(dead_code)] // the module's stable entry point; the fetcher calls `allowed`
pub fn check_allowed(url: &Url, extra: &[String]) -> Result<(), String> {
    allowed(url, extra, &[])
}

/// Whether a URL may be fetched: https to a default host or a listed one;
/// plain http only to a host listed explicitly. `trusted` are the hosts the
/// user allowed (flags, environment), `config` those a config file allowed.
/// An IP address is allowed only when the user listed it: a config file names
/// public DNS names only, and the addresses a name resolves to are checked
/// when connecting ([`is_public`]).
pub fn allowed(url: &Url, trusted: &[String], config: &[String]) -> Result<(), String> {
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let with_port = url.port().map(|p| format!("{host}:{p}"));
    let listed_in = |hosts: &[String]| {
        hosts.iter().any(|h| {
            let h = h.trim().to_ascii_lowercase();
            let h = h.replace(['[', ']'], "");
            h == host || with_port.as_deref() == Some(h.as_str())
        })
    };
    let user = listed_in(trusted);
    // The URL parser writes every IPv4 spelling (`0x7f.1`, `2130706433`)
    // in dotted form.
    let is_ip = host.parse::<std::net::IpAddr>().is_ok();
    if is_ip && !user {
        return Err(format!(
            "host {host} is an IP address; addresses are fetched only when allowed on the command line (--allow-host {host}) or in {ALLOW_HOSTS_ENV}, never by a config file"
        ));
    }
    let listed = user || listed_in(config);
    // A config file can allow public DNS names only: for any other host the
    // way is the user's own.
    let how = if check_config_host(host).is_some() {
        format!("pass --allow-host {host} (or list it in {ALLOW_HOSTS_ENV})")
    } else {
        format!(
            "add it to `allow-hosts: [{host}]` in the config file (or pass --allow-host {host})"
        )
    };
    match url.scheme() {
        "https" if listed || (DEFAULT_HOSTS.contains(&host) && url.port().is_none()) => Ok(()),
        "https" => Err(format!("host {host} is not allowed; {how}")),
        "http" if listed => Ok(()),
        "http" => Err(format!(
            "plain http is allowed only for a host listed explicitly; {how}, or use https"
        )),
        other => Err(format!(
            "scheme {other}: only https (and http to listed hosts)"
        )),
    }
}

/// Why a config file may not allow `host` (`host` or `host:port`), or
/// `None`: a config file (attacker-controlled in a fork's pull request) may
/// add public DNS names only: no IP address, no `localhost`, no single-label
/// name (a search domain could make it internal) and no name under a
/// special-use or internal suffix (`.local`, `.internal`, `.arpa`, ...).
/// Anything else is for `--allow-host` or [`ALLOW_HOSTS_ENV`].
pub fn check_config_host(host: &str) -> Option<String> {
    let h = host.trim().to_ascii_lowercase();
    let how = format!(
        "a config file may allow public DNS names only; allow it on the command line (--allow-host {}) or in {ALLOW_HOSTS_ENV}",
        host.trim()
    );
    // `host`, `host:port`, `[v6]` or `[v6]:port`.
    let name = if let Some(rest) = h.strip_prefix('[') {
        rest.split(']').next().unwrap_or("").to_string()
    } else {
        match h.rsplit_once(':') {
            Some((n, port)) if !n.contains(':') && port.parse::<u16>().is_ok() => n.to_string(),
            _ => h.clone(),
        }
    };
    if name.parse::<std::net::IpAddr>().is_ok() {
        return Some(format!("{host} is an IP address; {how}"));
    }
    let labels: Vec<&str> = name.trim_end_matches('.').split('.').collect();
    let valid = !name.is_empty()
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    if !valid {
        return Some(format!("{host} is not a DNS name; {how}"));
    }
    if labels.len() < 2 {
        return Some(format!("{host} is a single-label name; {how}"));
    }
    let last = labels[labels.len() - 1];
    // All-numeric last labels are how some resolvers read IPv4 shorthands.
    if last.chars().all(|c| c.is_ascii_digit())
        || labels.first() == Some(&"localhost")
        || matches!(
            last,
            "localhost"
                | "local"
                | "internal"
                | "localdomain"
                | "lan"
                | "home"
                | "arpa"
                | "test"
                | "invalid"
        )
    {
        return Some(format!("{host} is a local or special-use name; {how}"));
    }
    None
}

/// Whether an address is public: not loopback, unspecified, link-local
/// (`169.254.0.0/16`, cloud metadata; `fe80::/10`), private (`10/8`,
/// `172.16/12`, `192.168/16`, `fc00::/7`), shared (`100.64/10`), multicast,
/// broadcast, benchmarking or reserved; IPv4-mapped and -compatible IPv6
/// addresses are judged by their IPv4 address.
pub fn is_public(ip: std::net::IpAddr) -> bool {
    use std::net::IpAddr;
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (b == 18 || b == 19))
                || (a == 192 && b == 0 && v4.octets()[2] == 0)
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let seg = v6.segments();
            // IPv4-compatible (`::a.b.c.d`, deprecated) and NAT64 (`64:ff9b::/96`).
            if seg[..6] == [0, 0, 0, 0, 0, 0] || seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                let v4 = std::net::Ipv4Addr::new(
                    (seg[6] >> 8) as u8,
                    seg[6] as u8,
                    (seg[7] >> 8) as u8,
                    seg[7] as u8,
                );
                return !v6.is_loopback() && !v6.is_unspecified() && is_public(IpAddr::V4(v4));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (seg[0] & 0xfe00) == 0xfc00
                || (seg[0] & 0xffc0) == 0xfe80
                || (seg[0] & 0xffc0) == 0xfec0
                || (seg[0] == 0x2001 && seg[1] == 0x0db8))
        }
    }
}

/// The DNS resolver of every connection: the system's resolver, then only
/// public addresses ([`is_public`]) unless the user allowed the host (or it
/// is the proxy the environment names). The check is at connect time, on the
/// addresses actually used, so a name that resolves differently later (DNS
/// rebinding) or a redirect cannot reach an internal address.
struct PublicOnly {
    /// Host names (no port) allowed any address.
    trusted: Vec<String>,
}

impl PublicOnly {
    fn new(allow: &[String]) -> PublicOnly {
        let mut trusted: Vec<String> = allow.iter().map(|h| host_name(h)).collect();
        // The proxy the user's environment names is theirs too.
        for var in [
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
        ] {
            if let Some(h) = std::env::var(var)
                .ok()
                .and_then(|v| Url::parse(&v).ok())
                .and_then(|u| u.host_str().map(str::to_string))
            {
                trusted.push(host_name(&h));
            }
        }
        PublicOnly { trusted }
    }
}

/// The host name of `host`, `host:port` or `[v6]:port`, lower case.
fn host_name(h: &str) -> String {
    let h = h.trim().to_ascii_lowercase();
    if let Some(rest) = h.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("").to_string();
    }
    match h.rsplit_once(':') {
        Some((n, port)) if !n.contains(':') && port.parse::<u16>().is_ok() => n.to_string(),
        _ => h,
    }
}

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let trusted = self.trusted.contains(&host);
        Box::pin(async move {
            let addrs = Lookup::start(host.clone()).await?;
            let (public, refused): (Vec<_>, Vec<_>) = addrs
                .into_iter()
                .partition(|a| trusted || is_public(a.ip()));
            if public.is_empty() {
                let shown: Vec<String> = refused.iter().map(|a| a.ip().to_string()).collect();
                let message = format!(
                    "host {host} resolves only to non-public addresses ({}); loopback, link-local, private and other internal addresses are reached only for a host allowed on the command line (--allow-host {host}) or in {ALLOW_HOSTS_ENV}",
                    shown.join(", ")
                );
                return Err(Box::new(Refused(message)) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(public.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The resolver's refusal of a host: final, never retried.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Whether two URLs are on the same `host:port` (scheme default ports).
fn same_origin(a: &Url, b: &Url) -> bool {
    a.host_str().map(str::to_ascii_lowercase) == b.host_str().map(str::to_ascii_lowercase)
        && a.port_or_known_default() == b.port_or_known_default()
}

/// The resolver's refusal in `e`'s causes, as the message to report.
fn refusal(e: &reqwest::Error) -> Option<String> {
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = src {
        if let Some(r) = s.downcast_ref::<Refused>() {
            return Some(format!("refused: {}", r.0));
        }
        src = s.source();
    }
    None
}

/// A system DNS lookup on a thread of its own, as a future (the blocking
/// client's runtime is not blocked; the request's timeouts still apply).
struct Lookup {
    state: Arc<Mutex<LookupState>>,
}

type LookupResult = Result<Vec<std::net::SocketAddr>, Box<dyn std::error::Error + Send + Sync>>;

#[derive(Default)]
struct LookupState {
    done: Option<LookupResult>,
    waker: Option<std::task::Waker>,
}

impl Lookup {
    fn start(host: String) -> Lookup {
        let state = Arc::new(Mutex::new(LookupState::default()));
        let shared = state.clone();
        let spawned = std::thread::Builder::new()
            .name("dns".into())
            .spawn(move || {
                use std::net::ToSocketAddrs as _;
                let result: LookupResult = (host.as_str(), 0)
                    .to_socket_addrs()
                    .map(|a| a.collect())
                    .map_err(|e| e.into());
                if let Ok(mut s) = shared.lock() {
                    s.done = Some(result);
                    if let Some(w) = s.waker.take() {
                        w.wake();
                    }
                }
            });
        if let Err(e) = spawned
            && let Ok(mut s) = state.lock()
        {
            s.done = Some(Err(e.into()));
        }
        Lookup { state }
    }
}

impl std::future::Future for Lookup {
    type Output = LookupResult;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let Ok(mut s) = self.state.lock() else {
            return std::task::Poll::Ready(Err("the DNS lookup failed".into()));
        };
        match s.done.take() {
            Some(r) => std::task::Poll::Ready(r),
            None => {
                s.waker = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }
    }
}

/// An error and its causes, on one line.
/// A URL's `host[:port]`, the host lower-cased.
fn host_port(url: &Url) -> String {
    let host = url.host_str().unwrap_or("").to_ascii_lowercase();
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}

fn cause(e: &reqwest::Error) -> String {
    let mut out = if e.is_timeout() {
        "timed out".to_string()
    } else if e.is_connect() {
        "cannot connect".to_string()
    } else {
        String::new()
    };
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e);
    let mut parts: Vec<String> = Vec::new();
    while let Some(s) = src {
        let t = s.to_string();
        if !parts.contains(&t) {
            parts.push(t);
        }
        src = s.source();
    }
    if parts.is_empty() {
        parts.push(e.to_string());
    }
    if !out.is_empty() {
        out.push_str(": ");
    }
    out.push_str(&parts.join(": "));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_list() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(check_allowed(&u("https://raw.githubusercontent.com/a/b"), &[]).is_ok());
        let e = check_allowed(&u("https://evil.example/x"), &[]).unwrap_err();
        assert!(
            e.contains("evil.example") && e.contains("allow-hosts"),
            "{e}"
        );
        assert!(check_allowed(&u("http://raw.githubusercontent.com/a"), &[]).is_err());
        let e = allowed(&u("http://docs.example.org/a"), &[], &[]).unwrap_err();
        assert!(e.contains("plain http"), "{e}");
        // A config may list names, never addresses: an address is the user's.
        let config = vec!["127.0.0.1".to_string(), "docs.example.org".to_string()];
        let e = allowed(&u("http://127.0.0.1/a"), &[], &config).unwrap_err();
        assert!(e.contains("IP address"), "{e}");
        assert!(allowed(&u("http://docs.example.org/a"), &[], &config).is_ok());
        let e = allowed(&u("http://0x7f.1/a"), &[], &config).unwrap_err();
        assert!(e.contains("IP address"), "{e}");
        let listed = vec!["127.0.0.1".to_string()];
        assert!(check_allowed(&u("http://127.0.0.1:8080/a"), &listed).is_ok());
        assert!(check_allowed(&u("https://docs.sglang.io:8443/a"), &[]).is_err());
        assert!(check_allowed(&u("file:///etc/passwd"), &[]).is_err());
    }

    #[test]
    fn config_hosts_are_public_dns_names() {
        for ok in [
            "docs.example.org",
            "recipes.vllm.ai:8443",
            "a-b.example.com.",
        ] {
            assert_eq!(check_config_host(ok), None, "{ok}");
        }
        for bad in [
            "127.0.0.1",
            "127.0.0.1:8080",
            "169.254.169.254",
            "10.0.0.1",
            "[::1]",
            "[fd00::1]:443",
            "::1",
            "localhost",
            "localhost:80",
            "x.localhost",
            "localhost.example.com",
            "metadata",
            "metadata.google.internal",
            "printer.local",
            "127.1",
            "0x7f.1",
            "2130706433",
            "1.1.1.1.in-addr.arpa",
            "bad_name.example",
            "",
        ] {
            let why = check_config_host(bad).unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(why.contains("--allow-host"), "{why}");
        }
    }

    #[test]
    fn internal_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "127.8.9.1",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "fc00::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["1.1.1.1", "140.82.112.3", "172.32.0.1", "2606:4700::1111"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    /// Answers every connection on `listener` with `200 ok\n`, on a thread.
    fn serve_ok(listener: std::net::TcpListener) {
        use std::io::{Read as _, Write as _};
        std::thread::spawn(move || {
            for mut s in listener.incoming().flatten() {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf);
                let _ = s.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n",
                );
            }
        });
    }

    /// The resolver refuses a name that resolves to loopback (`localhost`,
    /// from the hosts file: no network) unless the user allowed the host; a
    /// config's allowance is not enough, and the check is at connect time.
    #[test]
    fn a_name_resolving_to_loopback_is_refused_at_connect_time() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        serve_ok(listener);
        let host = format!("localhost:{port}");
        let url = format!("http://{host}/x");
        let dir = tempfile::tempdir().unwrap();
        let fetch = |allow: Vec<String>, config: Vec<String>| {
            Fetcher::new(FetchOptions {
                cache_dir: Some(dir.path().to_path_buf()),
                allow_hosts: allow,
                config_hosts: config,
                tries: 1,
                ..FetchOptions::default()
            })
            .get(&RemoteRef::Url(url.clone()))
        };
        let e = fetch(vec![], vec![host.clone()]).unwrap_err().to_string();
        assert!(
            e.contains("resolves only to non-public addresses")
                && e.contains("--allow-host localhost"),
            "{e}"
        );
        // The refusal is final: with three tries allowed it is not retried
        // (no "gave up after 3 tries").
        let e = Fetcher::new(FetchOptions {
            cache_dir: Some(dir.path().to_path_buf()),
            config_hosts: vec![host.clone()],
            tries: 3,
            retry_delay: std::time::Duration::from_millis(1),
            ..FetchOptions::default()
        })
        .get(&RemoteRef::Url(url.clone()))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("refused: host localhost resolves only to non-public addresses")
                && !e.contains("gave up")
                && !e.contains("tries"),
            "{e}"
        );
        let body = fetch(vec![host.clone()], vec![]).unwrap().unwrap();
        assert_eq!(body.as_str(), "ok\n");
    }

    /// A host that refused the connection is not tried again in the same
    /// run: another URL on it fails at once with the same message, even once
    /// the host is up (a later run tries again).
    #[test]
    fn an_unreachable_host_is_remembered_for_the_run() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let host = format!("127.0.0.1:{port}");
        let dir = tempfile::tempdir().unwrap();
        let fetcher = || {
            Fetcher::new(FetchOptions {
                cache_dir: Some(dir.path().to_path_buf()),
                allow_hosts: vec![host.clone()],
                tries: 1,
                ..FetchOptions::default()
            })
        };
        let url = |p: &str| RemoteRef::Url(format!("http://{host}/{p}"));
        let run = fetcher();
        let first = run.get(&url("a")).unwrap_err().to_string();
        assert!(first.contains("cannot connect"), "{first}");
        let Ok(listener) = std::net::TcpListener::bind(&host) else {
            return; // the port was taken meanwhile: nothing to learn
        };
        serve_ok(listener);
        let again = run.get(&url("a")).unwrap_err().to_string();
        assert_eq!(again, first, "the same URL fails the same way");
        let message = |e: Error| match e {
            Error::Remote { location, message } => (location, message),
            other => panic!("not a remote error: {other}"),
        };
        let (at_a, why_a) = message(run.get(&url("a")).unwrap_err());
        let (at_b, why_b) = message(run.get(&url("b")).unwrap_err());
        assert!(at_a.ends_with("/a") && at_b.ends_with("/b"), "{at_b}");
        assert_eq!(why_b, why_a, "another URL on the host fails the same way");
        let body = fetcher().get(&url("b")).unwrap().unwrap();
        assert_eq!(body.as_str(), "ok\n", "a new run tries the host again");
    }

    #[test]
    fn github_refs() {
        let r = RemoteRef::parse("github:o/r@main:a/b.sh").unwrap().unwrap();
        assert_eq!(r.display(), "github:o/r@main:a/b.sh");
        assert_eq!(r.parent().join("c.sh").display(), "github:o/r@main:a/c.sh");
        let root = RemoteRef::parse("github:o/r@v1").unwrap().unwrap();
        assert_eq!(root.join("configs").display(), "github:o/r@v1:configs");
        assert!(RemoteRef::parse("github:o@main").unwrap().is_err());
        let u = RemoteRef::Url("https://h.io/a/b/c.md?x=1".into());
        assert_eq!(u.parent().join("../d.sh").display(), "https://h.io/a/d.sh");
    }
}
