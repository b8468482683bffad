//! The `irinorm` command: a thin shell over [`irinorm::cli`].

fn main() -> std::process::ExitCode {
    irinorm::cli::main()
}
