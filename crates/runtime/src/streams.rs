//! The host side of the `streams` interface: where a guest pushes list items and action
//! progress. Each call that streams puts one sink into the instance's resource table and
//! lends it to the guest; the sink forwards what the guest sends to whoever consumes the
//! stream, and waits while the consumer is behind (backpressure), so a stream of any length
//! runs in bounded memory.

use futures::future::BoxFuture;
use wasmtime::component::Resource;

use super::bindings::wit_streams;
use super::host_state::HostState;

/// Forwards one list item; resolves to whether the consumer wants more.
pub type PushItem = Box<dyn FnMut(wit_streams::ListItem) -> BoxFuture<'static, bool> + Send>;
/// Forwards one progress message.
pub type ReportProgress = Box<dyn FnMut(String) -> BoxFuture<'static, ()> + Send>;

/// The `list-results` a guest pushes into during one `list-resource` call.
pub struct ListSink {
    push: PushItem,
    /// Set once the consumer wanted no more: later pushes are dropped without waiting.
    finished: bool,
}

impl ListSink {
    pub fn new(push: PushItem) -> ListSink {
        ListSink { push, finished: false }
    }
}

/// The `action-progress` a guest reports into during one `invoke-action` call.
pub struct ProgressSink {
    report: ReportProgress,
}

impl ProgressSink {
    pub fn new(report: ReportProgress) -> ProgressSink {
        ProgressSink { report }
    }
}

impl HostState {
    /// Lends `sink` to the guest for one call; take it back with [`HostState::take_list_sink`].
    pub fn lend_list_sink(&mut self, sink: ListSink) -> wasmtime::Result<Resource<ListSink>> {
        Ok(self.table.push(sink)?)
    }

    pub fn take_list_sink(&mut self, sink: Resource<ListSink>) -> wasmtime::Result<()> {
        self.table.delete(sink)?;
        Ok(())
    }

    pub fn lend_progress_sink(
        &mut self,
        sink: ProgressSink,
    ) -> wasmtime::Result<Resource<ProgressSink>> {
        Ok(self.table.push(sink)?)
    }

    pub fn take_progress_sink(&mut self, sink: Resource<ProgressSink>) -> wasmtime::Result<()> {
        self.table.delete(sink)?;
        Ok(())
    }

    /// Awaits a send to the consumer; the time it takes extends the call's time limit, because
    /// a slow reader is not the guest's doing.
    async fn wait_for_consumer<T>(&mut self, sending: impl Future<Output = T>) -> T {
        let started = std::time::Instant::now();
        self.waited_for_consumer.lock().unwrap_or_else(|p| p.into_inner()).since = Some(started);
        let out = sending.await;
        let waited = started.elapsed();
        // The epoch callback's deadline; the guard sees the wait through the shared record.
        self.budget.deadline += waited;
        let mut record = self.waited_for_consumer.lock().unwrap_or_else(|p| p.into_inner());
        record.total += waited;
        record.since = None;
        out
    }
}

impl wit_streams::Host for HostState {}

impl wit_streams::HostListResults for HostState {
    async fn push(
        &mut self,
        handle: Resource<ListSink>,
        item: wit_streams::ListItem,
    ) -> wasmtime::Result<bool> {
        let sink = self.table.get_mut(&handle)?;
        if sink.finished {
            return Ok(false);
        }
        let sending = (sink.push)(item);
        let more = self.wait_for_consumer(sending).await;
        self.table.get_mut(&handle)?.finished = !more;
        Ok(more)
    }

    async fn drop(&mut self, sink: Resource<ListSink>) -> wasmtime::Result<()> {
        // Borrowed handles are never dropped by the guest; the host takes the sink back
        // after the call. A drop of an owned handle (none are ever given) is harmless.
        let _ = self.table.delete(sink);
        Ok(())
    }
}

impl wit_streams::HostActionProgress for HostState {
    async fn report(
        &mut self,
        sink: Resource<ProgressSink>,
        message: String,
    ) -> wasmtime::Result<()> {
        let sending = (self.table.get_mut(&sink)?.report)(message);
        self.wait_for_consumer(sending).await;
        Ok(())
    }

    async fn drop(&mut self, sink: Resource<ProgressSink>) -> wasmtime::Result<()> {
        let _ = self.table.delete(sink);
        Ok(())
    }
}
