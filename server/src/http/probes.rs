//! `--probe-addr`: `/healthz` and `/readyz` on a listener of their own, served by a thread with a
//! runtime of its own.
//!
//! On the main runtime a probe's request waits behind every task that is ready to run. With
//! 10,000 open event streams each change wakes 10,000 of them; while a 1,000-pod training came up,
//! `/readyz` there answered in 3.8 to 10.9 ms at the median (issue 36). Here the probe's thread
//! runs nothing else (0.8 to 1.5 ms in the same runs). Its answer is the same JSON
//! (`super::health`): the database's answer a background task keeps (`db::Prober`), the
//! controller's and the identity provider's state.

use super::AppState;
use super::health;
use axum::Router;
use axum::routing::get;
use std::net::SocketAddr;
use tokio::sync::oneshot;

/// The probes' thread; stopped when dropped or by [`Probes::stop`].
pub struct Probes {
    stop: Option<oneshot::Sender<()>>,
    stopped: Option<oneshot::Receiver<()>>,
}

impl Probes {
    /// Binds `addr` (so a busy port is an error at start) and serves the probes from a new thread.
    pub fn start(addr: SocketAddr, state: AppState) -> anyhow::Result<Probes> {
        use anyhow::Context;
        let listener = std::net::TcpListener::bind(addr)
            .with_context(|| format!("cannot listen on {addr} for the probes (--probe-addr)"))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .thread_name("tephra-probes")
            .build()
            .context("cannot start the probes' runtime")?;
        let (stop, stopping) = oneshot::channel::<()>();
        let (done, stopped) = oneshot::channel::<()>();
        let router = Router::new()
            .route("/healthz", get(health::healthz))
            .route("/readyz", get(health::readyz))
            .with_state(state);
        std::thread::Builder::new()
            .name("tephra-probes".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let served = async {
                        let listener = tokio::net::TcpListener::from_std(listener)?;
                        axum::serve(listener, router)
                            .with_graceful_shutdown(async {
                                let _ = stopping.await;
                            })
                            .await
                    };
                    if let Err(error) = served.await {
                        tracing::error!(%error, "the probes' listener failed");
                    }
                });
                let _ = done.send(());
            })
            .context("cannot start the probes' thread")?;
        tracing::info!(%addr, "serving /healthz and /readyz on a thread of their own");
        Ok(Probes {
            stop: Some(stop),
            stopped: Some(stopped),
        })
    }

    /// Stops serving and waits for the thread's runtime to finish.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(stopped) = self.stopped.take() {
            let _ = stopped.await;
        }
    }
}

impl Drop for Probes {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
