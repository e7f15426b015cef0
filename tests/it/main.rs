mod placeholder {}
mod director_eval;
