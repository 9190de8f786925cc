//! `tephra`: parses the command line and runs the chosen subcommand.

use clap::Parser;
use server::config::{Cli, Command};
use std::process::ExitCode;

/// Rendering a page on the server recurses through its whole view tree, and an unoptimised
/// build's frames are large: the new-training form overflowed the default 2 MiB worker stack in a
/// debug build. 8 MiB is what the main thread gets.
const WORKER_STACK: usize = 8 << 20;

fn main() -> ExitCode {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(WORKER_STACK)
        .build();
    match runtime {
        Ok(runtime) => runtime.block_on(run()),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> ExitCode {
    match Cli::parse().into_command() {
        Command::Render(args) => {
            server::render_cli::run(&args, &mut std::io::stdout(), &mut std::io::stderr())
        }
        Command::Serve(args) => {
            if let Err(e) = args.validate() {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
            server::telemetry::init(&args.log, args.log_format);
            let shutdown = server::shutdown_signal();
            let app = match server::Application::build(&args).await {
                Ok(app) => app,
                Err(e) => {
                    tracing::error!(error = format!("{e:#}"), "cannot start");
                    eprintln!("error: {e:#}");
                    return ExitCode::FAILURE;
                }
            };
            match app.run_until(shutdown).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e:#}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
