mod placeholder {}
mod director;
mod director_eval;
mod director_remote;
