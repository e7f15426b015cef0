-- Voice latency per utterance (src/voice/session.rs): milliseconds from the end of speech to
-- each phase (admission, firstResponse, firstAction, verifiedResult, cessation).
CREATE TABLE voice_latency (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    utterance TEXT NOT NULL,
    phase TEXT NOT NULL,
    ms INTEGER NOT NULL,
    at INTEGER NOT NULL
);
