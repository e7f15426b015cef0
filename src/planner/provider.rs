//! The planner's model: any OpenAI-compatible chat endpoint (llama.cpp server, ollama, vLLM,
//! OpenAI) asked for the next move of a run, in words.
//!
//! What it sees: the goal, the steps so far with their outcomes, the screen as labels in context
//! (never an element id), and up to `MAX_PAGE_TEXT` characters of the page's text. What it must
//! answer: exactly one JSON object (`prompt`). Only the first complete object is read
//! (`parse`); anything after it (a model narrating the steps it imagines next) is ignored.
//! `prompt` and `parse` are pure; `OpenAiPlanner` is the adapter.

use super::{Done, Proposal};
use crate::model::Observation;
use serde_json::{json, Value};
use std::time::Duration;

/// Page text the model sees, at most (characters).
pub const MAX_PAGE_TEXT: usize = 5000;
/// Elements listed, at most.
pub const MAX_ELEMENTS: usize = 120;

/// What the model is told it must answer.
pub const INSTRUCTIONS: &str = "You control a web browser for a person, one step at a time. \
You see the goal, the steps done so far with what happened, and what is on the screen now. \
Answer with exactly one JSON object and nothing else, one of:\n\
{\"step\": \"<one action in plain words, naming what is on screen by its label>\", \"irreversible\": <true if it buys, sends, deletes or cannot be undone>}\n\
{\"answer\": \"<the answer to a question about the page>\", \"passage\": \"<the words on the page it rests on>\"}\n\
{\"done\": \"<what was achieved>\"}\n\
{\"ask\": \"<a question for the person>\"}\n\
Never name anything that is not on the screen; never describe later steps.";

/// The user message for one turn.
pub fn prompt(goal: &str, done: &[Done], observation: &Observation, page_text: &str) -> String {
    let mut s = format!("Goal: {goal}\n\nDone so far:\n");
    if done.is_empty() {
        s.push_str("(nothing yet)\n");
    }
    for (k, d) in done.iter().enumerate() {
        s.push_str(&format!(
            "{}. {} -> {} ({})\n",
            k + 1,
            d.words,
            d.outcome.as_str(),
            d.note
        ));
    }
    s.push_str(&format!(
        "\nOn screen: \"{}\" at {}\n",
        observation.title, observation.url
    ));
    for e in observation.elements.iter().take(MAX_ELEMENTS) {
        let label = if e.label.trim().is_empty() {
            e.description.as_deref().unwrap_or("").trim()
        } else {
            e.label.trim()
        };
        if label.is_empty() {
            continue;
        }
        s.push_str(&format!("- {} \"{}\"", e.role, label));
        if !e.context.trim().is_empty() && e.context.trim() != label {
            s.push_str(&format!(" in \"{}\"", shorten(e.context.trim(), 100)));
        }
        if let Some(v) = e.value.as_deref().filter(|v| !v.is_empty()) {
            s.push_str(&format!(" value \"{v}\""));
        }
        s.push('\n');
    }
    let text: String = page_text.chars().take(MAX_PAGE_TEXT).collect();
    if !text.trim().is_empty() {
        s.push_str(&format!("\nPage text:\n{text}\n"));
    }
    s
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

/// The first complete JSON object in `content`, read as a proposal. Text before it is skipped;
/// text after it is ignored; no object, or one with none of the keys, is `Malformed`.
pub fn parse(content: &str) -> Proposal {
    let malformed = || Proposal::Malformed {
        raw: shorten(content.trim(), 400),
    };
    let Some(object) = first_object(content) else {
        return malformed();
    };
    let Ok(v) = serde_json::from_str::<Value>(object) else {
        return malformed();
    };
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    if let Some(words) = text("step") {
        return Proposal::Step {
            words,
            irreversible: v
                .get("irreversible")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
    }
    if let Some(text_) = text("answer") {
        return Proposal::Answer {
            text: text_,
            passage: text("passage"),
        };
    }
    if let Some(summary) = text("done") {
        return Proposal::Done { summary };
    }
    if let Some(question) = text("ask") {
        return Proposal::Ask { question };
    }
    malformed()
}

/// The text of the first balanced `{…}` in `s`, strings and escapes respected.
fn first_object(s: &str) -> Option<&str> {
    let start = s.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in s[start..].char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[start..start + i + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

#[derive(Debug, thiserror::Error)]
pub enum PlannerError {
    #[error("no planner is configured ([planner] url and model in the config)")]
    NotConfigured,
    #[error("the planner did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the planner is unreachable: {0}")]
    Unavailable(String),
    #[error("the planner answered HTTP {status}: {body}")]
    Http { status: u16, body: String },
}

/// An OpenAI-compatible chat endpoint.
pub struct OpenAiPlanner {
    client: reqwest::Client,
    /// Base URL up to and including `/v1`.
    base_url: String,
    model: String,
    api_key: Option<String>,
    timeout: Duration,
}

impl OpenAiPlanner {
    pub fn new(
        base_url: &str,
        model: &str,
        api_key: Option<String>,
        timeout: Duration,
    ) -> Result<OpenAiPlanner, PlannerError> {
        if base_url.trim().is_empty() || model.trim().is_empty() {
            return Err(PlannerError::NotConfigured);
        }
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| PlannerError::Unavailable(e.to_string()))?;
        Ok(OpenAiPlanner {
            client,
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            api_key,
            timeout,
        })
    }

    /// Ask for the next move; `repair` is the unreadable answer of the previous call, if any.
    pub async fn propose(
        &self,
        user: &str,
        repair: Option<&str>,
    ) -> Result<Proposal, PlannerError> {
        let mut messages = vec![
            json!({"role": "system", "content": INSTRUCTIONS}),
            json!({"role": "user", "content": user}),
        ];
        if let Some(raw) = repair {
            messages.push(json!({"role": "assistant", "content": raw}));
            messages.push(json!({"role": "user", "content": "That was not one JSON object of the four kinds. Answer again with exactly one JSON object and nothing else."}));
        }
        let body = json!({
            "model": self.model,
            "messages": messages,
            "temperature": 0,
        });
        let mut req = self
            .client
            .post(format!("{}/chat/completions", self.base_url))
            .json(&body);
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let resp = req.send().await.map_err(|e| self.error(e))?;
        let status = resp.status();
        let text = resp.text().await.map_err(|e| self.error(e))?;
        if !status.is_success() {
            return Err(PlannerError::Http {
                status: status.as_u16(),
                body: shorten(&text, 300),
            });
        }
        let content = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| {
                v["choices"][0]["message"]["content"]
                    .as_str()
                    .map(String::from)
            })
            .unwrap_or(text);
        Ok(parse(&content))
    }

    fn error(&self, e: reqwest::Error) -> PlannerError {
        if e.is_timeout() {
            PlannerError::Timeout(self.timeout)
        } else {
            PlannerError::Unavailable(e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_complete_object_is_read_and_the_rest_ignored() {
        let table = [
            (
                r#"{"step": "sort by price", "irreversible": false}"#,
                Proposal::Step {
                    words: "sort by price".into(),
                    irreversible: false,
                },
            ),
            (
                "Sure! {\"step\": \"click \\\"Add to cart\\\" {desk}\"} Then I will {\"step\": \"checkout\"}",
                Proposal::Step {
                    words: "click \"Add to cart\" {desk}".into(),
                    irreversible: false,
                },
            ),
            (
                r#"{"step": "place the order", "irreversible": true}"#,
                Proposal::Step {
                    words: "place the order".into(),
                    irreversible: true,
                },
            ),
            (
                r#"{"answer": "a Rust database", "passage": "Show HN: A tiny Rust database"}"#,
                Proposal::Answer {
                    text: "a Rust database".into(),
                    passage: Some("Show HN: A tiny Rust database".into()),
                },
            ),
            (
                r#"{"done": "the desk is in the cart"}"#,
                Proposal::Done {
                    summary: "the desk is in the cart".into(),
                },
            ),
            (
                r#"{"ask": "Which colour?"}"#,
                Proposal::Ask {
                    question: "Which colour?".into(),
                },
            ),
            (
                "First I sort, then I add.",
                Proposal::Malformed {
                    raw: "First I sort, then I add.".into(),
                },
            ),
            (
                r#"{"step": ""}"#,
                Proposal::Malformed {
                    raw: r#"{"step": ""}"#.into(),
                },
            ),
            (
                r#"{"step": "unterminated"#,
                Proposal::Malformed {
                    raw: r#"{"step": "unterminated"#.into(),
                },
            ),
        ];
        for (content, want) in table {
            assert_eq!(parse(content), want, "{content}");
        }
    }

    #[test]
    fn the_prompt_names_labels_never_ids() {
        let observation = Observation {
            title: "Desks".into(),
            url: "http://shop.example/desks".into(),
            elements: vec![crate::director::observation::element(
                "r17",
                "button",
                "Add to cart",
                "Oak desk 120 EUR",
            )],
            ..Observation::default()
        };
        let done = [Done {
            words: "sort by price".into(),
            outcome: super::super::StepOutcome::Applied,
            note: "clicked \"Price\"".into(),
            screen: 1,
        }];
        let p = prompt(
            "add the cheapest desk",
            &done,
            &observation,
            &"§".repeat(9000),
        );
        assert!(
            p.contains("button \"Add to cart\" in \"Oak desk 120 EUR\""),
            "{p}"
        );
        assert!(
            p.contains("1. sort by price -> done (clicked \"Price\")"),
            "{p}"
        );
        assert!(!p.contains("r17"), "{p}");
        assert_eq!(p.matches("§").count(), MAX_PAGE_TEXT);
    }
}
