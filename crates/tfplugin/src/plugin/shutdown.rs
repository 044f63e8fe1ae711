//! A one-way "stop serving" switch shared by the controller, signals and streams.

use std::sync::Arc;

use tokio::sync::watch;

/// A cloneable handle: any clone may [`trigger`](Shutdown::trigger) it, and every
/// [`wait`](Shutdown::wait) (past or future) then completes. It never resets.
#[derive(Debug, Clone)]
pub struct Shutdown {
    sender: Arc<watch::Sender<bool>>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Self::new()
    }
}

impl Shutdown {
    /// A switch that has not been triggered.
    pub fn new() -> Self {
        let (sender, _) = watch::channel(false);
        Shutdown { sender: Arc::new(sender) }
    }

    /// Asks everything waiting on this switch to stop. Idempotent.
    pub fn trigger(&self) {
        self.sender.send_replace(true);
    }

    /// Whether [`trigger`](Shutdown::trigger) has been called.
    pub fn is_triggered(&self) -> bool {
        *self.sender.borrow()
    }

    /// Completes once the switch is triggered (at once if it already was).
    pub async fn wait(&self) {
        let mut receiver = self.sender.subscribe();
        // Err only if the sender is gone, and `self` holds it.
        let _ = receiver.wait_for(|triggered| *triggered).await;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn trigger_wakes_waiters_before_and_after() {
        let shutdown = Shutdown::new();
        assert!(!shutdown.is_triggered());
        let early = tokio::spawn({
            let shutdown = shutdown.clone();
            async move { shutdown.wait().await }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!early.is_finished());

        shutdown.clone().trigger();
        tokio::time::timeout(Duration::from_secs(5), early).await.unwrap().unwrap();
        assert!(shutdown.is_triggered());
        tokio::time::timeout(Duration::from_secs(5), shutdown.wait()).await.unwrap();
    }
}
