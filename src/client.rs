//! A client of the control API, used by the CLI (and by tests and benchmarks).

use crate::daemon::control::Lines;
use crate::protocol::{
    ApiError, Folded, Notification, OperationFold, Reply, ReplyBody, Request, Verb,
};
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::UnixStream;

use crate::protocol::MAX_REPLY_BYTES;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("circe is not running (nothing is listening on {0}); start it with `circe serve`")]
    NotRunning(PathBuf),
    #[error("{0}")]
    Api(#[from] ApiError),
    #[error("the connection to circe failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("circe sent something this client cannot read: {0}")]
    Protocol(String),
}

pub struct Client {
    reader: Lines<OwnedReadHalf>,
    writer: OwnedWriteHalf,
    next_id: u64,
    /// The node every request is for (`None`: the local one).
    node: Option<String>,
}

impl Client {
    pub async fn connect(path: &Path) -> Result<Client, ClientError> {
        let stream = UnixStream::connect(path)
            .await
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
                    ClientError::NotRunning(path.into())
                }
                _ => ClientError::Io(e),
            })?;
        let (read, writer) = stream.into_split();
        Ok(Client {
            reader: Lines::new(read, MAX_REPLY_BYTES),
            writer,
            next_id: 1,
            node: None,
        })
    }

    /// Send every request of this connection to `node` (a peer, by name or id), through the
    /// local daemon.
    pub fn via(mut self, node: Option<String>) -> Client {
        self.node = node;
        self
    }

    /// Send one request and wait for its reply.
    pub async fn call(&mut self, verb: Verb) -> Result<serde_json::Value, ClientError> {
        let id = self.send(verb).await?;
        self.reply(id).await
    }

    /// Wait for the reply to request `id` (0: an error about no request in particular).
    async fn reply(&mut self, id: u64) -> Result<serde_json::Value, ClientError> {
        loop {
            let line = self.line().await?;
            if let Ok(reply) = serde_json::from_str::<Reply>(&line) {
                if reply.id == id || reply.id == 0 {
                    return match reply.body {
                        ReplyBody::Ok(v) => Ok(v),
                        ReplyBody::Error(e) => Err(ClientError::Api(e)),
                    };
                }
            }
        }
    }

    /// Send one local administration request (pairing, devices) and wait for its reply.
    pub async fn call_admin(
        &mut self,
        verb: crate::protocol::AdminVerb,
    ) -> Result<serde_json::Value, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut line = serde_json::to_string(&crate::protocol::AdminRequest { id, verb })
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await?;
        self.reply(id).await
    }

    /// Send one local voice request and wait for its (first) reply.
    pub async fn call_voice(
        &mut self,
        verb: crate::protocol::VoiceVerb,
    ) -> Result<serde_json::Value, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut line = serde_json::to_string(&crate::protocol::VoiceRequest { id, verb })
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await?;
        self.reply(id).await
    }

    /// Send a request without waiting; returns its id.
    pub async fn send(&mut self, verb: Verb) -> Result<u64, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut line = serde_json::to_string(&Request {
            id,
            node: self.node.clone(),
            verb,
        })
        .map_err(|e| ClientError::Protocol(e.to_string()))?;
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await?;
        Ok(id)
    }

    /// Send raw bytes (for tests of bad input).
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        self.writer.write_all(bytes).await?;
        Ok(())
    }

    /// The next line from the daemon.
    pub async fn line(&mut self) -> Result<String, ClientError> {
        match self.reader.next().await? {
            Some(Ok(line)) => Ok(line),
            Some(Err(n)) => Err(ClientError::Protocol(format!("a {n}-byte line"))),
            None => Err(ClientError::Io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "circe closed the connection",
            ))),
        }
    }

    /// Turn this connection into a subscription. The first notification is a snapshot.
    pub async fn subscribe(mut self) -> Result<Subscription, ClientError> {
        self.call(Verb::Subscribe).await?;
        Ok(Subscription {
            client: self,
            fold: OperationFold::default(),
        })
    }
}

/// A subscription, following the operations its notifications are about (`OperationFold`).
pub struct Subscription {
    client: Client,
    fold: OperationFold,
}

impl Subscription {
    /// The next notification, as it came.
    pub async fn next(&mut self) -> Result<Notification, ClientError> {
        loop {
            let line = self.client.line().await?;
            if let Ok(n) = serde_json::from_str::<Notification>(&line) {
                self.fold.apply(&n);
                return Ok(n);
            }
        }
    }

    /// The next notification, where an event about an operation this subscription follows is
    /// given as that whole operation as it now is (`Notification::Operation`).
    pub async fn next_folded(&mut self) -> Result<Notification, ClientError> {
        loop {
            let line = self.client.line().await?;
            let Ok(n) = serde_json::from_str::<Notification>(&line) else {
                continue;
            };
            let event = matches!(
                n,
                Notification::StepStarted { .. }
                    | Notification::StepEnded { .. }
                    | Notification::OperationStatus { .. }
            );
            return Ok(match self.fold.apply(&n) {
                Folded::Changed(ids) if event => match self.fold.get(ids[0]) {
                    Some(op) => Notification::Operation {
                        operation: op.clone(),
                    },
                    None => n,
                },
                _ => n,
            });
        }
    }

    /// Follow `op` as a reply gave it (unless a newer revision is already known).
    pub fn follow(&mut self, op: crate::model::Operation) {
        self.fold.insert(op);
    }

    /// An operation this subscription follows, as it now is.
    pub fn operation(&self, id: crate::model::OperationId) -> Option<&crate::model::Operation> {
        self.fold.get(id)
    }
}
