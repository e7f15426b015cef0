mod placeholder {}
mod director;
mod director_eval;
