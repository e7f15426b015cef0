//! The voice commands: `say --audio FILE.wav`, `listen`, `metrics`.
//!
//! `say --audio` hands the file's absolute path to the daemon, which reads it (the control socket
//! is this OS user's only) and runs it through its voice session: VAD, the recogniser biased by
//! the screen, the guards, and the one admission path. `listen` keeps a connection open while
//! the daemon's voice session hears the microphone.

use super::args::{ListenArgs, SayArgs};
use super::commands::{subscribe_if, wait_for};
use super::render::operation_line;
use super::{Endpoint, EXIT_NOT_DONE};
use crate::model::{Operation, OperationStatus};
use crate::protocol::VoiceVerb;
use serde_json::Value;

fn absolute(path: &std::path::Path) -> anyhow::Result<String> {
    let p = std::path::absolute(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    p.to_str()
        .map(String::from)
        .ok_or_else(|| anyhow::anyhow!("{} is not a UTF-8 path", p.display()))
}

/// One line per utterance, for people.
fn hearing_line(h: &Value) -> String {
    let o = &h["outcome"];
    let text = o["text"].as_str().unwrap_or_default();
    match o["kind"].as_str().unwrap_or_default() {
        "admitted" => format!(
            "heard \"{text}\": {}",
            o["submitted"]["relation"].as_str().unwrap_or("taken")
        ),
        "refused" => format!(
            "heard \"{text}\": refused: {}",
            o["error"]["message"].as_str().unwrap_or_default()
        ),
        "transcribed" => format!("heard \"{text}\""),
        "stopped" => format!(
            "heard stop: {}",
            if o["interrupted"]["confirmed"] == true {
                "stopped"
            } else {
                "stop requested"
            }
        ),
        "nothingToStop" => format!("heard stop: {}", o["message"].as_str().unwrap_or_default()),
        "notUnderstood" => format!(
            "not understood ({})",
            o["reason"].as_str().unwrap_or_default()
        ),
        "notSpeech" => format!("no speech ({})", o["reason"].as_str().unwrap_or_default()),
        "ignored" => format!("heard \"{text}\" (nothing to do)"),
        other => other.to_string(),
    }
}

/// `circe say --audio FILE.wav [--wait]`.
pub async fn say_audio(at: &Endpoint, args: SayArgs, json: bool) -> anyhow::Result<i32> {
    let path = absolute(args.audio.as_deref().expect("--audio"))?;
    let mut sub = subscribe_if(at, args.wait && !args.transcribe).await?;
    let mut client = at.client().await?;
    let value = client
        .call_voice(VoiceVerb::Hear {
            path,
            bias: !args.no_bias,
            transcribe: args.transcribe,
        })
        .await?;
    let mut hearings: Vec<Value> = serde_json::from_value(value)?;
    let mut code = 0;
    for h in hearings.iter_mut() {
        let op: Option<Operation> =
            serde_json::from_value(h["outcome"]["submitted"]["operation"].clone()).ok();
        let (Some(sub), Some(op)) = (sub.as_mut(), op) else {
            continue;
        };
        let done = wait_for(sub, &mut client, op.id).await?;
        if !matches!(
            done.status,
            OperationStatus::Completed | OperationStatus::NeedsInput
        ) {
            code = EXIT_NOT_DONE;
        }
        h["operation"] = serde_json::to_value(&done)?;
    }
    if json {
        println!("{}", Value::Array(hearings));
    } else {
        if hearings.is_empty() {
            println!("no speech in the file");
        }
        for h in &hearings {
            println!("{}", hearing_line(h));
            if let Ok(op) = serde_json::from_value::<Operation>(h["operation"].clone()) {
                println!("  {}", operation_line(&op));
            }
        }
    }
    Ok(code)
}

/// `circe listen [--from FILE.wav] [--quiet]`: until Ctrl-C (or the file's end).
pub async fn listen(at: &Endpoint, args: ListenArgs, json: bool) -> anyhow::Result<i32> {
    let from = args.from.as_deref().map(absolute).transpose()?;
    let mut client = at.client().await?;
    client
        .call_voice(VoiceVerb::Listen {
            from,
            quiet: args.quiet,
        })
        .await?;
    if !json {
        eprintln!("listening (Ctrl-C to stop)");
    }
    loop {
        let line = tokio::select! {
            line = client.line() => line?,
            _ = tokio::signal::ctrl_c() => return Ok(0),
        };
        let v: Value = serde_json::from_str(&line)?;
        if json {
            println!("{v}");
        } else if v["event"] == "heard" {
            println!("{}", hearing_line(&v["hearing"]));
        }
        if v["event"] == "ended" {
            if let Some(error) = v["error"].as_str() {
                anyhow::bail!("{error}");
            }
            return Ok(0);
        }
    }
}

/// `circe metrics [--json]`.
pub async fn metrics(at: &Endpoint, json: bool) -> anyhow::Result<i32> {
    let mut client = at.client().await?;
    let value = client.call_voice(VoiceVerb::Metrics).await?;
    if json {
        println!("{value}");
        return Ok(0);
    }
    let rows = value.as_array().cloned().unwrap_or_default();
    if rows.is_empty() {
        println!("no voice latencies recorded yet");
        return Ok(0);
    }
    println!(
        "{:<16} {:>6} {:>8} {:>8}",
        "phase", "count", "p50 ms", "p95 ms"
    );
    for r in rows {
        println!(
            "{:<16} {:>6} {:>8} {:>8}",
            r["phase"].as_str().unwrap_or("?"),
            r["count"],
            r["p50Ms"],
            r["p95Ms"]
        );
    }
    Ok(0)
}
