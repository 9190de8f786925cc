//! `tephra`: parses the command line and runs the chosen subcommand.

use clap::Parser;
use server::config::{Cli, Command};
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
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
