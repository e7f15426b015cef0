//! Native-host mode: what Chrome starts for `connectNative("com.circe.connector")`.
//!
//! A stateless relay between Chrome (stdin/stdout, native byte order) and the running daemon
//! (`browser.sock`, authenticated with the per-install secret). It keeps Chrome's port open while
//! the daemon is away, reconnecting with backoff and telling the extension (`status` frames), and
//! exits only when Chrome closes stdin. The one thing it remembers is the extension's last `hello`,
//! so a restarted daemon learns who is connected. Nothing but frames is ever written to stdout.

use super::framing::{read_frame, write_frame, Order, FROM_CHROME_MAX, TO_CHROME_MAX};
use crate::config::Paths;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::UnixStream;
use tokio::sync::mpsc;

/// Chrome passes the calling extension's origin as the first argument.
pub fn is_native_host_launch(args: &[String]) -> Option<String> {
    args.get(1)
        .filter(|a| a.starts_with("chrome-extension://"))
        .cloned()
}

pub async fn run(origin: String) -> i32 {
    let paths = Paths::from_env(None, None);
    let (to_chrome, mut chrome_out) = mpsc::channel::<Vec<u8>>(64);
    let (to_daemon, daemon_in) = mpsc::channel::<Vec<u8>>(64);
    let hello: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();

    // Chrome → daemon.
    let reader_hello = hello.clone();
    let reader = tokio::spawn(async move {
        let mut stdin = tokio::io::stdin();
        loop {
            match read_frame(&mut stdin, FROM_CHROME_MAX, Order::Native).await {
                Ok(Some(frame)) => {
                    if is_hello(&frame) {
                        *reader_hello.lock().unwrap_or_else(|p| p.into_inner()) =
                            Some(frame.clone());
                    }
                    // While the daemon is away, frames are dropped: the extension has been told.
                    let _ = to_daemon.try_send(frame);
                }
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "bad frame from Chrome; closing");
                    return;
                }
            }
        }
    });
    // → Chrome.
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(frame) = chrome_out.recv().await {
            if let Err(e) = write_frame(&mut stdout, &frame, TO_CHROME_MAX, Order::Native).await {
                match e {
                    super::framing::FrameError::TooLarge { .. } => {
                        tracing::warn!(error = %e, "dropped a frame for Chrome")
                    }
                    _ => return, // EPIPE: Chrome closed the port.
                }
            }
        }
    });
    let daemon = tokio::spawn(daemon_loop(paths, origin, daemon_in, to_chrome, hello));
    // Chrome closing stdin ends the host.
    let _ = reader.await;
    daemon.abort();
    writer.abort();
    0
}

fn is_hello(frame: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(frame)
        .ok()
        .and_then(|v| v.get("type").cloned())
        == Some("hello".into())
}

fn status(connected: bool) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "type": "status",
        "daemon": if connected { "connected" } else { "disconnected" }
    }))
    .expect("status serializes")
}

async fn daemon_loop(
    paths: Paths,
    origin: String,
    mut from_chrome: mpsc::Receiver<Vec<u8>>,
    to_chrome: mpsc::Sender<Vec<u8>>,
    hello: Arc<Mutex<Option<Vec<u8>>>>,
) {
    let mut backoff = Duration::from_millis(250);
    let mut announced: Option<bool> = None;
    loop {
        match connect(&paths, &origin).await {
            Ok(stream) => {
                backoff = Duration::from_millis(250);
                if announced != Some(true) {
                    let _ = to_chrome.send(status(true)).await;
                    announced = Some(true);
                }
                let (r, mut w) = stream.into_split();
                let greeting = hello.lock().unwrap_or_else(|p| p.into_inner()).clone();
                if let Some(h) = greeting {
                    if write_frame(&mut w, &h, FROM_CHROME_MAX, Order::Little)
                        .await
                        .is_err()
                    {
                        continue;
                    }
                }
                // One task per direction: daemon → Chrome reads whole frames in its own task, so
                // a frame is never dropped half read when Chrome's direction has something to
                // send (a `read_frame` inside `select!` is not cancel-safe).
                let mut from_daemon = tokio::spawn(relay(r, to_chrome.clone()));
                loop {
                    tokio::select! {
                        frame = from_chrome.recv() => match frame {
                            Some(f) => {
                                if write_frame(&mut w, &f, FROM_CHROME_MAX, Order::Little).await.is_err() {
                                    break;
                                }
                            }
                            None => {
                                from_daemon.abort();
                                return;
                            }
                        },
                        _ = &mut from_daemon => break,
                    }
                }
                from_daemon.abort();
            }
            Err(e) => tracing::debug!(error = %e, "daemon not reachable"),
        }
        if announced != Some(false) {
            let _ = to_chrome.send(status(false)).await;
            announced = Some(false);
        }
        // Frames from Chrome that arrive while the daemon is away are discarded.
        while from_chrome.try_recv().is_ok() {}
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

/// Daemon → Chrome, frame by frame, until the daemon's side ends or fails.
async fn relay(mut r: tokio::net::unix::OwnedReadHalf, to_chrome: mpsc::Sender<Vec<u8>>) {
    while let Ok(Some(frame)) = read_frame(&mut r, TO_CHROME_MAX, Order::Little).await {
        if to_chrome.send(frame).await.is_err() {
            return;
        }
    }
}

/// How long the daemon has to accept the host's authentication.
const ACCEPT_DEADLINE: Duration = Duration::from_secs(5);

/// Connect and authenticate; `Ok` only once the daemon said `accepted`.
async fn connect(paths: &Paths, origin: &str) -> std::io::Result<UnixStream> {
    let secret = std::fs::read_to_string(paths.browser_secret())?;
    let mut stream = UnixStream::connect(paths.browser_socket()).await?;
    let auth = serde_json::json!({ "type": "auth", "secret": secret.trim(), "origin": origin });
    write_frame(
        &mut stream,
        &serde_json::to_vec(&auth)?,
        64 * 1024,
        Order::Little,
    )
    .await
    .map_err(|e| std::io::Error::other(e.to_string()))?;
    let answer = tokio::time::timeout(
        ACCEPT_DEADLINE,
        read_frame(&mut stream, 64 * 1024, Order::Little),
    )
    .await
    .map_err(|_| std::io::Error::other("the daemon did not accept the host within 5 s"))?
    .map_err(|e| std::io::Error::other(e.to_string()))?;
    if !answer.as_deref().is_some_and(is_accepted) {
        return Err(std::io::Error::other(
            "the daemon refused the host (wrong secret or origin)",
        ));
    }
    Ok(stream)
}

fn is_accepted(frame: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(frame)
        .ok()
        .and_then(|v| v.get("type").cloned())
        == Some("accepted".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrome_launches_are_recognised_by_the_origin_argument() {
        let launch = vec![
            "/usr/bin/circe".to_string(),
            "chrome-extension://abc/".to_string(),
        ];
        assert_eq!(
            is_native_host_launch(&launch).as_deref(),
            Some("chrome-extension://abc/")
        );
        assert_eq!(
            is_native_host_launch(&["circe".into(), "serve".into()]),
            None
        );
        assert_eq!(is_native_host_launch(&["circe".into()]), None);
    }

    #[test]
    fn hello_frames_are_told_apart() {
        assert!(is_hello(br#"{"type":"hello","protocol":1}"#));
        assert!(!is_hello(br#"{"type":"reply","id":1}"#));
        assert!(!is_hello(b"not json"));
    }
}
