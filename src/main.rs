//! The `irinorm` command: a thin shell over the library ([`irinorm`]): argument parsing and
//! the wiring of each subcommand to a library operation, in [`cli`].

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
