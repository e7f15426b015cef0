fn main() {
    std::process::exit(circe::cli::run());
}
