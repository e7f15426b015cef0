//! What the commands print for a person (`--json` prints replies as they came).

use crate::model::{Interaction, Operation, OperationStatus, Pending, StepResult};
use crate::protocol::{
    DevicesView, NodesView, Notification, ObservationView, StateView, Submitted,
};

/// The outcome class a person reads: done / not done / unknown / blocked.
pub fn outcome_class(status: OperationStatus) -> &'static str {
    match status {
        OperationStatus::Completed => "done",
        OperationStatus::Stopped => "not done (stopped)",
        OperationStatus::Blocked => "blocked",
        OperationStatus::OutcomeUnknown => "unknown",
        OperationStatus::Accepted => "accepted",
        OperationStatus::NeedsInput => "needs input",
        OperationStatus::Running => "running",
        OperationStatus::Verifying => "verifying",
    }
}

pub fn operation_line(op: &Operation) -> String {
    let what = op
        .outcome
        .as_ref()
        .map_or(op.expected_outcome.as_str(), |o| o.summary.as_str());
    format!(
        "{}  {:<10}  {}  {}",
        op.id,
        op.status.as_str(),
        op.goal.as_str(),
        what
    )
}

pub fn print_submitted(s: &Submitted, op: Option<&Operation>) {
    if s.replayed {
        println!("(already taken: nothing new happened)");
    }
    print_interaction(&s.interaction);
    match (op, &s.operation) {
        (Some(op), _) => print_operation(op),
        (None, Some(op)) => println!("accepted operation {}: {}", op.id, op.expected_outcome),
        (None, None) => {}
    }
}

fn print_interaction(i: &Interaction) {
    match &i.pending {
        Pending::Question(q) => {
            println!("? {}", q.prompt);
            for (n, c) in q.choices.iter().enumerate() {
                println!("  {}. {}", n + 1, c.label);
            }
            println!("  (answer with: circe answer ...)");
        }
        Pending::Approval(a) => println!("? {} (yes/no)", a.prompt),
        Pending::None if i.closed => println!("cancelled: {}", i.request),
        Pending::None => {}
    }
}

/// A step's result in words ("…" while it runs).
fn result_words(result: Option<StepResult>) -> &'static str {
    result.map_or("…", |r| match r {
        StepResult::Applied => "applied",
        StepResult::NotApplied => "not applied",
        StepResult::Unknown => "unknown",
        StepResult::Blocked => "blocked",
    })
}

fn print_operation(op: &Operation) {
    for step in &op.steps {
        let result = result_words(step.result);
        println!("  step {}: {} [{}]", step.index + 1, step.action, result);
    }
    let summary = op
        .outcome
        .as_ref()
        .map_or(op.expected_outcome.as_str(), |o| o.summary.as_str());
    println!("{}: {}", outcome_class(op.status), summary);
    if let Some(stop) = &op.stop {
        let confirmed = if stop.confirmed_at.is_some() {
            "confirmed"
        } else {
            "not yet confirmed"
        };
        println!("  stop requested by {} ({confirmed})", stop.requested_by);
    }
}

pub fn print_state(state: &StateView) {
    for n in &state.nodes {
        let seen = if n.online { "online" } else { "offline" };
        println!(
            "node {} {seen}{}",
            n.name,
            n.error
                .as_ref()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        );
    }
    println!("node {}", state.node);
    if let Some(b) = state.executors.get("browser") {
        match b["profile"]["label"].as_str() {
            Some(label) if b["connected"] == true => {
                println!("browser: Chrome profile \"{label}\" connected")
            }
            _ => println!("browser: no Chrome connected"),
        }
    }
    let Some(i) = &state.interaction else {
        println!("no interaction yet");
        return;
    };
    println!(
        "interaction {} (revision {}): {} \"{}\"",
        i.id,
        i.revision,
        i.goal.as_str(),
        i.request
    );
    if !i.arguments.is_empty() {
        let args: Vec<String> = i
            .arguments
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!("  arguments: {}", args.join(", "));
    }
    print_interaction(i);
    if let Some(op) = &state.operation {
        println!("operation {}", op.id);
        print_operation(op);
    }
}

pub fn print_notification(n: &Notification) {
    match n {
        Notification::Snapshot { state } => print_state(state),
        Notification::Interaction { interaction } => {
            println!(
                "interaction {} → revision {}",
                interaction.id, interaction.revision
            );
            print_interaction(interaction);
        }
        Notification::Node { node } => {
            if node.online {
                println!("node {} is online", node.name);
            } else {
                println!(
                    "node {} is offline{}",
                    node.name,
                    node.error
                        .as_ref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default()
                );
            }
        }
        Notification::StepStarted {
            operation, step, ..
        } => {
            println!("operation {operation}");
            println!("  step {}: {} [started]", step.index + 1, step.action);
        }
        Notification::StepEnded {
            operation, step, ..
        } => {
            println!("operation {operation}");
            println!(
                "  step {}: {} [{}]",
                step.index + 1,
                step.action,
                result_words(step.result)
            );
        }
        Notification::OperationStatus {
            operation,
            status,
            outcome,
            ..
        } => {
            println!("operation {operation} → {}", status.as_str());
            if let Some(o) = outcome {
                println!("  {}: {}", outcome_class(o.status), o.summary);
            }
        }
        Notification::Operation { operation } => {
            println!("operation {} → {}", operation.id, operation.status.as_str());
            if let Some(step) = operation.steps.last() {
                println!(
                    "  step {}: {} [{}]",
                    step.index + 1,
                    step.action,
                    result_words(step.result)
                );
            }
            if let Some(o) = &operation.outcome {
                println!("  {}: {}", outcome_class(o.status), o.summary);
            }
        }
    }
}

/// What Circe saw: the page, then each element it could act on.
pub fn print_observation(view: &ObservationView) {
    let o = &view.observation;
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    println!("observation {}", view.id);
    println!("  {} — {}", text(&o["title"]), text(&o["url"]));
    let elements = o["elements"].as_array().cloned().unwrap_or_default();
    println!("  {} elements", elements.len());
    for e in &elements {
        let context = text(&e["context"]);
        println!(
            "  {:<6} {:<10} {}{}",
            text(&e["id"]),
            text(&e["role"]),
            text(&e["label"]),
            if context.is_empty() {
                String::new()
            } else {
                format!("  ({})", context.chars().take(60).collect::<String>())
            }
        );
    }
}

pub fn print_nodes(listed: &NodesView) {
    if listed.nodes.is_empty() {
        println!("no nodes paired; pair one with circe join (its circe pair shows how)");
    }
    for n in &listed.nodes {
        let state = match &n.link {
            Some(link) if link.online => "online".to_string(),
            link => format!(
                "offline ({})",
                link.as_ref()
                    .and_then(|l| l.error.as_deref())
                    .unwrap_or("not connected")
            ),
        };
        println!("{}  {}  {}  {state}", n.peer.name, n.peer.id, n.peer.url);
    }
}

/// `circe devices`: this node, then one line per device.
pub fn print_devices(listed: &DevicesView) {
    let node = &listed.node;
    println!(
        "node {} ({}, {}) id {} on {}",
        node.name,
        node.role,
        if listed.devices.is_empty() {
            "no devices"
        } else {
            "paired"
        },
        node.id,
        node.origin
    );
    if let Some(fingerprint) = &node.fingerprint {
        println!("  TLS certificate key SHA-256 (SPKI, base64) {fingerprint}");
    }
    for d in &listed.devices {
        let state = match (d.device.revoked_at, d.sockets) {
            (Some(_), _) => "revoked",
            (None, 0) => "offline",
            (None, _) => "online",
        };
        let scopes: Vec<&str> = d.device.scopes.iter().map(|c| c.as_str()).collect();
        println!(
            "  {}  {:<20} {:<8} scopes {}",
            d.device.id,
            d.device.name,
            state,
            scopes.join(",")
        );
    }
}
