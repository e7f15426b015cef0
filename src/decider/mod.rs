//! Remote deciders: the Director's closed-choice questions put to a model over the network
//! (an OpenAI-compatible chat API, a decisions API). The seam itself (the `Decider` trait, its
//! questions and answers) and the local decider, Circe's own grounding, live under the Director
//! (`director::decider`, `director::local`); this module depends on the Director, never the
//! other way round.

pub mod remote;
