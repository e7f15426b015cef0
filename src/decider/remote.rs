//! Remote deciders over HTTP, behind the same seam as the local one.
//!
//! - [`OpenAiChat`]: any OpenAI-compatible chat-completions endpoint
//!   (llama.cpp server, ollama, vLLM, OpenAI). Each question is one request
//!   asking for one option key; the first token's `top_logprobs` are read as
//!   probabilities.
//! - [`DecisionsApi`]: a decisions-API style endpoint (seed 001): one request
//!   with several typed choice questions, answered with a probability per
//!   option.
//!
//! Invariants: an answer naming a key that was not offered is rejected; any
//! error or timeout falls back to the local decider; a remote answer is mixed
//! with the local one, so a remote model can make Circe ask but cannot make
//! it act alone against deterministic evidence. Circe stays correct with no
//! remote decider at all.

use std::future::Future;
use std::time::Duration;

use serde_json::{json, Value};

use crate::director::decider::{validate, Answer, Ask, DecideError, Decider, Question};
use crate::director::local::LocalDecider;
use crate::director::{self, Decision, Envelope, Snapshot};

/// An async decider reached over the network.
pub trait RemoteDecider: Send + Sync {
    fn name(&self) -> &'static str;
    fn decide<'a>(
        &'a self,
        ask: &'a Ask<'a>,
    ) -> impl Future<Output = Result<Vec<Answer>, DecideError>> + Send + 'a;
}

/// Grounds one turn with a remote decider, falling back to the local decider
/// on any error, timeout or invalid answer. `remote: None` is the local path.
pub async fn decide_with<R: RemoteDecider>(
    remote: Option<&R>,
    envelope: &Envelope,
    snapshot: &Snapshot,
    timeout: Duration,
) -> Decision {
    let prepared = director::prepare(envelope, snapshot);
    let Some(ask) = prepared.ask() else {
        return prepared.unanswered();
    };
    let local = LocalDecider
        .decide(&ask)
        .and_then(|a| validate(&ask, &a).map(|_| a));
    let remote_answers = match remote {
        Some(r) => match tokio::time::timeout(timeout, r.decide(&ask)).await {
            Ok(Ok(a)) => validate(&ask, &a).map(|_| a).ok(),
            Ok(Err(e)) => {
                tracing::warn!(decider = r.name(), error = %e, "remote decider failed; using the local one");
                None
            }
            Err(_) => {
                tracing::warn!(
                    decider = r.name(),
                    "remote decider timed out; using the local one"
                );
                None
            }
        },
        None => None,
    };
    match (local, remote_answers) {
        (Ok(l), Some(r)) => prepared.conclude(&ask, &mix(&l, &r)),
        (Ok(l), None) => prepared.conclude(&ask, &l),
        (Err(_), Some(r)) => prepared.conclude(&ask, &r),
        (Err(_), None) => prepared.unanswered(),
    }
}

/// Equal mixture of two answer sets over the same questions.
pub fn mix(a: &[Answer], b: &[Answer]) -> Vec<Answer> {
    a.iter()
        .map(|x| match b.iter().find(|y| y.key == x.key) {
            Some(y) => Answer {
                key: x.key,
                probabilities: x
                    .probabilities
                    .iter()
                    .zip(&y.probabilities)
                    .map(|(p, q)| 0.5 * (p + q))
                    .collect(),
            },
            None => x.clone(),
        })
        .collect()
}

/// The prompt text for one question.
pub fn prompt(ask: &Ask<'_>, question: &Question) -> String {
    let mut s = String::new();
    if let Some(first) = ask.heard.first() {
        s.push_str(&format!("Command: \"{}\"\n", first.text));
    }
    for alt in ask.heard.iter().skip(1) {
        s.push_str(&format!(
            "It may also have been heard as: \"{}\"\n",
            alt.text
        ));
    }
    s.push_str(&format!(
        "\nQuestion: {}\nOptions:\n",
        question.instructions
    ));
    for c in &question.choices {
        s.push_str(&format!("{}: {}\n", c.key, ask.describe(c)));
    }
    s.push_str("\nAnswer with exactly one option key and nothing else.");
    s
}

/// An OpenAI-compatible chat-completions decider reading token logprobs.
#[derive(Debug, Clone)]
pub struct OpenAiChat {
    pub client: reqwest::Client,
    /// Base URL up to and including `/v1`.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
}

impl OpenAiChat {
    pub fn new(
        base_url: &str,
        model: &str,
        api_key: Option<String>,
        timeout: Duration,
    ) -> Result<OpenAiChat, DecideError> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| DecideError::Unavailable(e.to_string()))?;
        Ok(OpenAiChat {
            client,
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            api_key,
        })
    }

    async fn one(&self, ask: &Ask<'_>, question: &Question) -> Result<Answer, DecideError> {
        let body = json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": "You ground a user's command on a screen by answering closed-choice questions. Reply with one option key only."},
                {"role": "user", "content": prompt(ask, question)},
            ],
            "max_tokens": 4,
            "temperature": 0,
            "logprobs": true,
            "top_logprobs": 20,
        });
        let url = format!("{}/chat/completions", self.base_url);
        let value = post_json(&self.client, &url, self.api_key.as_deref(), &body).await?;
        read_chat_answer(question, &value)
    }
}

/// POSTs a JSON body and reads a JSON reply; any failure is a `DecideError`.
async fn post_json(
    client: &reqwest::Client,
    url: &str,
    api_key: Option<&str>,
    body: &Value,
) -> Result<Value, DecideError> {
    let mut request = client.post(url).json(body);
    if let Some(key) = api_key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.map_err(http_error)?;
    if !response.status().is_success() {
        return Err(DecideError::Unavailable(format!(
            "status {}",
            response.status()
        )));
    }
    response.json().await.map_err(http_error)
}

fn http_error(e: reqwest::Error) -> DecideError {
    if e.is_timeout() {
        DecideError::Timeout
    } else {
        DecideError::Unavailable(e.to_string())
    }
}

/// Reads a chat-completions response as a distribution over the offered keys.
pub fn read_chat_answer(question: &Question, value: &Value) -> Result<Answer, DecideError> {
    let choice = &value["choices"][0];
    let content = choice["message"]["content"]
        .as_str()
        .ok_or_else(|| DecideError::Invalid("no message content".into()))?
        .trim();
    let chosen = question
        .choices
        .iter()
        .position(|c| c.key == content)
        .ok_or_else(|| DecideError::Invalid(format!("{content:?} is not an offered key")))?;
    let tokens = choice["logprobs"]["content"].as_array();
    let mut probabilities = vec![0.0f32; question.choices.len()];
    match tokens {
        Some(tokens) if !tokens.is_empty() => {
            let joint: f64 = tokens.iter().filter_map(|t| t["logprob"].as_f64()).sum();
            probabilities[chosen] = joint.exp() as f32;
            if let Some(top) = tokens[0]["top_logprobs"].as_array() {
                for alt in top {
                    let (Some(tok), Some(lp)) = (alt["token"].as_str(), alt["logprob"].as_f64())
                    else {
                        continue;
                    };
                    if let Some(i) = question.choices.iter().position(|c| c.key == tok.trim()) {
                        if i != chosen {
                            probabilities[i] = probabilities[i].max(lp.exp() as f32);
                        }
                    }
                }
            }
        }
        _ => probabilities[chosen] = 1.0,
    }
    let sum: f32 = probabilities.iter().sum();
    if sum > 1.0 {
        probabilities.iter_mut().for_each(|p| *p /= sum);
    }
    Ok(Answer {
        key: question.key,
        probabilities,
    })
}

impl RemoteDecider for OpenAiChat {
    fn name(&self) -> &'static str {
        "openai-chat"
    }

    async fn decide<'a>(&'a self, ask: &'a Ask<'a>) -> Result<Vec<Answer>, DecideError> {
        let mut answers = Vec::new();
        for question in &ask.questions {
            answers.push(self.one(ask, question).await?);
        }
        Ok(answers)
    }
}

/// A decisions-API style endpoint: `POST {base}/decisions` with typed choice
/// questions, answered with `{"answers": {name: {"choice": key,
/// "probabilities": {key: p}}}}`.
#[derive(Debug, Clone)]
pub struct DecisionsApi {
    pub client: reqwest::Client,
    pub base_url: String,
    pub api_key: Option<String>,
}

impl DecisionsApi {
    pub fn new(
        base_url: &str,
        api_key: Option<String>,
        timeout: Duration,
    ) -> Result<DecisionsApi, DecideError> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| DecideError::Unavailable(e.to_string()))?;
        Ok(DecisionsApi {
            client,
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
        })
    }
}

/// The request body for a decisions-API call.
pub fn decisions_body(ask: &Ask<'_>) -> Value {
    let mut questions = serde_json::Map::new();
    for q in &ask.questions {
        let criteria: serde_json::Map<String, Value> = q
            .choices
            .iter()
            .map(|c| (c.key.clone(), Value::String(ask.describe(c))))
            .collect();
        questions.insert(
            q.key.name().to_string(),
            json!({"type": "choice", "instructions": q.instructions, "criteria": criteria}),
        );
    }
    json!({
        "input": ask.heard.first().map(|h| h.text.clone()).unwrap_or_default(),
        "alternatives": ask.heard.iter().skip(1).map(|h| h.text.clone()).collect::<Vec<_>>(),
        "questions": questions,
    })
}

/// Reads a decisions-API response; unknown keys are rejected.
pub fn read_decisions(ask: &Ask<'_>, value: &Value) -> Result<Vec<Answer>, DecideError> {
    let mut out = Vec::new();
    for q in &ask.questions {
        let a = &value["answers"][q.key.name()];
        let choice = a["choice"]
            .as_str()
            .ok_or_else(|| DecideError::Invalid(format!("no choice for {}", q.key.name())))?;
        let chosen = q
            .choices
            .iter()
            .position(|c| c.key == choice)
            .ok_or_else(|| DecideError::Invalid(format!("{choice:?} is not an offered key")))?;
        let mut probabilities = vec![0.0f32; q.choices.len()];
        match a["probabilities"].as_object() {
            Some(map) => {
                for (key, p) in map {
                    let i = q
                        .choices
                        .iter()
                        .position(|c| &c.key == key)
                        .ok_or_else(|| {
                            DecideError::Invalid(format!("{key:?} is not an offered key"))
                        })?;
                    probabilities[i] = p.as_f64().unwrap_or(0.0) as f32;
                }
            }
            None => probabilities[chosen] = a["confidence"].as_f64().unwrap_or(1.0) as f32,
        }
        out.push(Answer {
            key: q.key,
            probabilities,
        });
    }
    Ok(out)
}

impl RemoteDecider for DecisionsApi {
    fn name(&self) -> &'static str {
        "decisions-api"
    }

    async fn decide<'a>(&'a self, ask: &'a Ask<'a>) -> Result<Vec<Answer>, DecideError> {
        let url = format!("{}/decisions", self.base_url);
        let value = post_json(
            &self.client,
            &url,
            self.api_key.as_deref(),
            &decisions_body(ask),
        )
        .await?;
        read_decisions(ask, &value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::director::decider::{Choice, Meaning, QuestionKey};
    use crate::director::types::Direction;

    fn question() -> Question {
        Question {
            key: QuestionKey::Direction,
            instructions: "Which way?".into(),
            choices: vec![
                Choice {
                    key: "down".into(),
                    text: "Down".into(),
                    meaning: Meaning::Direction(Direction::Down),
                },
                Choice {
                    key: "up".into(),
                    text: "Up".into(),
                    meaning: Meaning::Direction(Direction::Up),
                },
            ],
        }
    }

    fn reply(content: &str, top: &[(&str, f64)]) -> Value {
        let top: Vec<Value> = top
            .iter()
            .map(|(t, lp)| json!({"token": t, "logprob": lp}))
            .collect();
        json!({"choices": [{"message": {"content": content}, "logprobs": {"content": [
            {"token": content, "logprob": top.first().and_then(|t| t["logprob"].as_f64()).unwrap_or(0.0), "top_logprobs": top}
        ]}}]})
    }

    #[test]
    fn logprobs_become_probabilities_over_offered_keys() {
        let a = read_chat_answer(
            &question(),
            &reply("down", &[("down", -0.1), ("up", -2.5), ("sideways", -3.0)]),
        )
        .expect("answer");
        assert!((a.probabilities[0] - (-0.1f32).exp()).abs() < 1e-4);
        assert!((a.probabilities[1] - (-2.5f32).exp()).abs() < 1e-4);
    }

    #[test]
    fn an_answer_outside_the_offered_keys_is_rejected() {
        let e = read_chat_answer(&question(), &reply("sideways", &[("sideways", -0.1)]));
        assert!(matches!(e, Err(DecideError::Invalid(_))), "{e:?}");
        let ask = Ask {
            heard: Vec::new(),
            questions: vec![question()],
            screen: None,
        };
        let bad = json!({"answers": {"direction": {"choice": "down", "probabilities": {"down": 0.6, "left": 0.4}}}});
        assert!(matches!(
            read_decisions(&ask, &bad),
            Err(DecideError::Invalid(_))
        ));
        let good = json!({"answers": {"direction": {"choice": "up", "probabilities": {"down": 0.2, "up": 0.8}}}});
        assert_eq!(
            read_decisions(&ask, &good).expect("ok")[0].probabilities,
            vec![0.2, 0.8]
        );
    }

    #[test]
    fn mixing_halves_each_side() {
        let a = [Answer {
            key: QuestionKey::Direction,
            probabilities: vec![1.0, 0.0],
        }];
        let b = [Answer {
            key: QuestionKey::Direction,
            probabilities: vec![0.0, 0.9],
        }];
        assert_eq!(mix(&a, &b)[0].probabilities, vec![0.5, 0.45]);
    }

    #[test]
    fn the_prompt_lists_every_key_with_its_description() {
        let ask = Ask {
            heard: vec![crate::director::decider::Heard {
                text: "scroll up".into(),
                weight: 1.0,
            }],
            questions: vec![question()],
            screen: None,
        };
        let p = prompt(&ask, &ask.questions[0]);
        assert!(p.contains("Command: \"scroll up\""));
        assert!(
            p.contains("\ndown: Down\n") && p.contains("\nup: Up\n"),
            "{p}"
        );
    }
}
