fn main() {
    // Before any thread starts: the embedding model's thread pool size.
    circe::semantic::pin_threads();
    std::process::exit(circe::cli::run());
}
