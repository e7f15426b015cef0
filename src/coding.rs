//! The coding provider executor (`Goal::Coding`, seed 002): starts the `[[projects]]` entry's
//! provider command in the project's directory with the canonical objective of the closed plan,
//! and reports what the command did, observed.
//!
//! - No shell: the command is an argument list; the objective is its last argument, or its
//!   standard input (`objective = "stdin"`).
//! - The step is journalled before the command starts; the command gets the operation's id
//!   (`CIRCE_OPERATION`, and `CIRCE_INTERACTION`, `CIRCE_PROJECT`) so what it records can link back
//!   to the operation record.
//! - Its outcome is the command's: exit 0 → completed, with its last output lines as the summary;
//!   another exit status → blocked, with its standard error's tail; killed by anyone but Circe, or
//!   not observed → unknown. A stop sends SIGTERM to its process group, SIGKILL after
//!   [`STOP_GRACE`], and is confirmed only once the command's exit was observed.
//! - Output is bounded: the newest [`MAX_CAPTURE_BYTES`] of each stream are kept, and tails of at
//!   most [`TAIL_LINES`] lines and [`TAIL_CHARS`] characters are reported.

use crate::config::{ObjectiveVia, ProjectConfig};
use crate::executor::{begin, blocked, end, BoxFuture, ExecOutcome, Executor, RunContext};
use crate::model::{Goal, Operation, StepResult};
use serde_json::json;
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt as _;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};

/// The newest bytes of each output stream kept while the command runs.
pub const MAX_CAPTURE_BYTES: usize = 64 * 1024;
/// The most lines of a stream's tail in a summary, a reason or the step's evidence.
pub const TAIL_LINES: usize = 10;
/// The most characters of a stream's tail (a step's evidence is at most 4 KiB in all).
pub const TAIL_CHARS: usize = 1200;
/// How long a stopped command has after SIGTERM before SIGKILL (within the 3 s a shutting-down
/// daemon waits for its operations to confirm their stop).
pub const STOP_GRACE: Duration = Duration::from_secs(2);
/// How long the output is still read after the command exited (a process it left behind may
/// hold its pipes open; what was read by then is what is reported).
const DRAIN: Duration = Duration::from_millis(500);

pub struct CodingExecutor {
    node: String,
    projects: Vec<ProjectConfig>,
}

impl CodingExecutor {
    /// The executor for this node's projects (`node` is this node's name).
    pub fn new(node: &str, projects: &[ProjectConfig]) -> CodingExecutor {
        CodingExecutor {
            node: node.to_string(),
            projects: projects.to_vec(),
        }
    }

    async fn run_steps(&self, op: &Operation, cx: &RunContext<'_>) -> Result<ExecOutcome, String> {
        let arg = |k: &str| op.arguments.get(k).map_or("", String::as_str);
        let (name, objective) = (arg("project"), arg("objective"));
        let node = match arg("node") {
            "" => self.node.as_str(),
            n => n,
        };
        if objective.trim().is_empty() {
            return Ok(ExecOutcome::Blocked {
                reason: format!("no objective was given for {name}; nothing was started"),
            });
        }
        if node != self.node {
            return Ok(ExecOutcome::Blocked {
                reason: format!(
                    "{name} is on node {node}; Circe runs a project's provider command only on the node that holds it, and sending coding requests to another node is not built yet; nothing was started"
                ),
            });
        }
        let Some(project) = self
            .projects
            .iter()
            .find(|p| p.node_or(&self.node) == self.node && p.name == name)
        else {
            return Ok(ExecOutcome::Blocked {
                reason: format!(
                    "{name} is not in this node's [[projects]] catalog; nothing was started"
                ),
            });
        };
        let via = match project.objective {
            ObjectiveVia::Argument => "argument",
            ObjectiveVia::Stdin => "stdin",
        };
        let arguments: BTreeMap<String, String> = [
            ("project", project.name.clone()),
            ("path", project.path.display().to_string()),
            (
                "command",
                serde_json::to_string(&project.command).unwrap_or_default(),
            ),
            ("objective", objective.to_string()),
            ("objectiveVia", via.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        // Durable before the command starts: a crash from here on leaves it `unknown`.
        let step = begin(cx, "start provider command", arguments, None, true).await?;
        if cx.cancel.is_cancelled() || !cx.journal.current().await {
            end(cx, step, StepResult::NotApplied, json!({ "stopped": true })).await?;
            return Ok(ExecOutcome::Stopped);
        }

        let mut command = tokio::process::Command::new(&project.command[0]);
        command.args(&project.command[1..]);
        if project.objective == ObjectiveVia::Argument {
            command.arg(objective);
        }
        command
            .current_dir(&project.path)
            .env("CIRCE_OPERATION", op.id.to_string())
            .env("CIRCE_INTERACTION", op.interaction.to_string())
            .env("CIRCE_PROJECT", &project.name)
            .stdin(match project.objective {
                ObjectiveVia::Stdin => Stdio::piped(),
                ObjectiveVia::Argument => Stdio::null(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so a stop reaches what it started too.
            .process_group(0)
            .kill_on_drop(true);
        let mut child = match command.spawn() {
            Ok(c) => c,
            Err(e) => {
                let reason = format!(
                    "the provider command {:?} of {} could not be started ({e}); nothing ran",
                    project.command[0], project.name
                );
                return blocked(cx, step, reason).await;
            }
        };
        let pid = child.id();
        tracing::info!(project = %project.name, pid, "provider command started");
        if let Some(mut stdin) = child.stdin.take() {
            let text = objective.to_string();
            tokio::spawn(async move {
                // A command that does not read its input closes the pipe: not an error here.
                let _ = stdin.write_all(text.as_bytes()).await;
                let _ = stdin.shutdown().await;
            });
        }
        let mut stdout = capture(child.stdout.take());
        let mut stderr = capture(child.stderr.take());

        let exited = tokio::select! {
            biased;
            _ = cx.cancel.cancelled() => None,
            status = child.wait() => Some(status),
        };
        let Some(exited) = exited else {
            let (signal, status) = stop(&mut child, pid).await;
            let evidence = json!({
                "stopped": true,
                "pid": pid,
                "signal": signal,
                "exit": status.as_ref().map_or_else(|e| format!("not observed: {e}"), describe),
                "stdoutTail": tail(&stdout.text(), TAIL_LINES, TAIL_CHARS),
                "stderrTail": tail(&stderr.text(), TAIL_LINES, TAIL_CHARS),
            });
            // It ran for a while: what it changed before it stopped is not known.
            end(cx, step, StepResult::Unknown, evidence).await?;
            return Ok(match status {
                Ok(_) => ExecOutcome::Stopped,
                Err(e) => ExecOutcome::Unknown {
                    reason: format!(
                        "the provider command of {} was asked to stop, but its end could not be observed ({e})",
                        project.name
                    ),
                },
            });
        };
        stdout.drain().await;
        stderr.drain().await;
        let (out, err) = (stdout.text(), stderr.text());
        let evidence = |status: &str| {
            json!({
                "pid": pid,
                "exit": status,
                "stdoutBytes": stdout.total(),
                "stderrBytes": stderr.total(),
                "stdoutTail": tail(&out, TAIL_LINES, TAIL_CHARS),
                "stderrTail": tail(&err, TAIL_LINES, TAIL_CHARS),
            })
        };
        let status = match exited {
            Ok(s) => s,
            Err(e) => {
                end(cx, step, StepResult::Unknown, evidence("not observed")).await?;
                return Ok(ExecOutcome::Unknown {
                    reason: format!(
                        "the provider command of {} ran, but its end could not be observed ({e}); what it changed is unknown",
                        project.name
                    ),
                });
            }
        };
        let said = describe(&status);
        if status.success() {
            end(cx, step, StepResult::Applied, evidence(&said)).await?;
            let last = tail(&out, TAIL_LINES, TAIL_CHARS);
            let summary = if last.is_empty() {
                format!(
                    "{}: the provider command finished (exit 0) and said nothing",
                    project.name
                )
            } else {
                format!("{}: {last}", project.name)
            };
            return Ok(ExecOutcome::Completed {
                summary,
                data: json!({
                    "project": project.name,
                    "objective": objective,
                    "exitCode": 0,
                    "output": last,
                }),
            });
        }
        if let Some(code) = status.code() {
            end(cx, step, StepResult::Blocked, evidence(&said)).await?;
            let why = [
                tail(&err, TAIL_LINES, TAIL_CHARS),
                tail(&out, TAIL_LINES, TAIL_CHARS),
            ]
            .into_iter()
            .find(|t| !t.is_empty())
            .unwrap_or_else(|| "it said nothing".into());
            return Ok(ExecOutcome::Blocked {
                reason: format!(
                    "the provider command of {} exited with status {code}: {why}",
                    project.name
                ),
            });
        }
        end(cx, step, StepResult::Unknown, evidence(&said)).await?;
        Ok(ExecOutcome::Unknown {
            reason: format!(
                "the provider command of {} ended by {said}, not by Circe; what it changed is unknown",
                project.name
            ),
        })
    }
}

/// Stop the command's process group: SIGTERM, then SIGKILL after [`STOP_GRACE`]; the stop is
/// confirmed by the exit observed. Returns the last signal sent and that exit.
async fn stop(
    child: &mut tokio::process::Child,
    pid: Option<u32>,
) -> (&'static str, std::io::Result<ExitStatus>) {
    let group = |signal: i32| {
        if let Some(pid) = pid {
            // SAFETY: kill(2) on the process group the command leads (process_group(0)); no
            // memory is involved.
            unsafe { libc::kill(-(pid as i32), signal) };
        }
    };
    group(libc::SIGTERM);
    if let Ok(status) = tokio::time::timeout(STOP_GRACE, child.wait()).await {
        // What it started and left behind goes too.
        group(libc::SIGKILL);
        return ("SIGTERM", status);
    }
    group(libc::SIGKILL);
    let _ = child.start_kill();
    ("SIGKILL", child.wait().await)
}

fn describe(status: &ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => "an unknown end".to_string(),
    }
}

/// The newest bytes of one output stream, read as it comes.
#[derive(Default)]
struct Kept {
    bytes: std::collections::VecDeque<u8>,
    total: u64,
}

/// One stream being captured.
struct Capture {
    kept: Arc<Mutex<Kept>>,
    reader: Option<tokio::task::JoinHandle<()>>,
}

impl Capture {
    /// Wait (at most [`DRAIN`]) for the rest of the stream, then stop reading it.
    async fn drain(&mut self) {
        if let Some(reader) = self.reader.as_mut() {
            let _ = tokio::time::timeout(DRAIN, &mut *reader).await;
            reader.abort();
        }
    }

    fn text(&self) -> String {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let bytes: Vec<u8> = kept.bytes.iter().copied().collect();
        // The front may start inside a character that was cut off.
        let start = bytes
            .iter()
            .position(|b| (*b as i8) >= -0x40)
            .unwrap_or(bytes.len());
        String::from_utf8_lossy(&bytes[start..]).into_owned()
    }

    fn total(&self) -> u64 {
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).total
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        if let Some(reader) = &self.reader {
            reader.abort();
        }
    }
}

fn capture(stream: Option<impl AsyncRead + Unpin + Send + 'static>) -> Capture {
    let kept = Arc::new(Mutex::new(Kept::default()));
    let reader = stream.map(|mut stream| {
        let kept = kept.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 8192];
            while let Ok(n) = stream.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                let mut k = kept.lock().unwrap_or_else(|p| p.into_inner());
                k.total += n as u64;
                k.bytes.extend(&buf[..n]);
                let over = k.bytes.len().saturating_sub(MAX_CAPTURE_BYTES);
                k.bytes.drain(..over);
            }
        })
    });
    Capture { kept, reader }
}

/// The last `lines` non-empty lines of `text`, at most `chars` characters (cut at the front).
pub fn tail(text: &str, lines: usize, chars: usize) -> String {
    let last: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let joined = last[last.len().saturating_sub(lines)..].join("\n");
    let n = joined.chars().count();
    if n <= chars {
        return joined;
    }
    let kept: String = joined.chars().skip(n - chars + 1).collect();
    format!("…{kept}")
}

impl Executor for CodingExecutor {
    fn goal(&self) -> Goal {
        Goal::Coding
    }

    fn run<'a>(
        &'a self,
        operation: &'a Operation,
        cx: RunContext<'a>,
    ) -> BoxFuture<'a, ExecOutcome> {
        Box::pin(async move {
            self.run_steps(operation, &cx)
                .await
                .unwrap_or_else(|reason| ExecOutcome::Unknown {
                    reason: format!("the step could not be recorded: {reason}"),
                })
        })
    }

    fn status(&self) -> serde_json::Value {
        let projects: Vec<&str> = self
            .projects
            .iter()
            .filter(|p| p.node_or(&self.node) == self.node)
            .map(|p| p.name.as_str())
            .collect();
        json!({ "ready": true, "projects": projects })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_are_bounded_in_lines_and_characters() {
        let text = (1..=30).map(|i| format!("line {i}\n")).collect::<String>();
        let t = tail(&text, TAIL_LINES, TAIL_CHARS);
        assert_eq!(t.lines().count(), TAIL_LINES);
        assert!(t.starts_with("line 21") && t.ends_with("line 30"), "{t}");
        assert_eq!(tail("\n\n  \nonly\n\n", 3, 100), "only");
        assert_eq!(tail("", 3, 100), "");
        let long = "é".repeat(50);
        let t = tail(&long, 3, 10);
        assert_eq!(t.chars().count(), 10);
        assert!(t.starts_with('…'));
    }
}
