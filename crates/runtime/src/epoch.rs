//! The clock that call budgets are measured by: it advances an engine's epoch while a guest
//! call is running and sleeps while none is, so that an idle provider (Terraform walking its
//! graph between calls, a dev server waiting for the next command) costs no CPU.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::{self, Thread};
use std::time::Duration;

use wasmtime::Engine;

/// How often the engine's epoch advances while calls run; call timeouts and stops are
/// noticed in these ticks.
const EPOCH_TICK: Duration = Duration::from_millis(10);

/// One engine's epoch ticker. Every runtime on the engine shares it.
#[derive(Debug)]
pub(crate) struct EpochTicker {
    /// Guest calls running on the engine now.
    running: Arc<AtomicUsize>,
    /// The ticking thread, unparked when the first call starts.
    thread: Thread,
}

impl EpochTicker {
    /// Starts the ticking thread for `engine`. It ends once the engine is dropped and no call
    /// is running.
    pub(crate) fn start(engine: &Engine) -> std::io::Result<EpochTicker> {
        let engine = engine.weak();
        let running = Arc::new(AtomicUsize::new(0));
        let calls = running.clone();
        let handle = thread::Builder::new().name("terrarium-epoch".into()).spawn(move || {
            loop {
                if calls.load(Ordering::Acquire) == 0 {
                    // A call starting after the check unparks first, so `park` returns at
                    // once; spurious wake-ups go round the loop again.
                    thread::park();
                    continue;
                }
                let Some(engine) = engine.upgrade() else { return };
                engine.increment_epoch();
                drop(engine);
                thread::sleep(EPOCH_TICK);
            }
        })?;
        Ok(EpochTicker { running, thread: handle.thread().clone() })
    }

    /// Marks a guest call as running until the returned guard is dropped; the epoch advances
    /// while any is.
    pub(crate) fn call_running(&self) -> CallRunning<'_> {
        if self.running.fetch_add(1, Ordering::AcqRel) == 0 {
            self.thread.unpark();
        }
        CallRunning(self)
    }

    /// Whether a call is running now.
    #[cfg(test)]
    fn is_ticking(&self) -> bool {
        self.running.load(Ordering::Acquire) > 0
    }
}

/// A guest call that is running; see [`EpochTicker::call_running`].
pub(crate) struct CallRunning<'a>(&'a EpochTicker);

impl Drop for CallRunning<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use wasmtime::{Config, Store};

    use super::*;

    /// A store whose epoch deadline is one tick away, to tell from outside whether the epoch
    /// advanced: the deadline callback counts the ticks it sees.
    fn counting_store(engine: &Engine) -> Store<u32> {
        let mut store = Store::new(engine, 0u32);
        store.epoch_deadline_callback(|mut ctx| {
            *ctx.data_mut() += 1;
            Ok(wasmtime::UpdateDeadline::Continue(1))
        });
        store.set_epoch_deadline(1);
        store
    }

    /// A module that loops until `$stop` says so: the epoch is checked at each loop header.
    const SPIN: &str = r#"
        (module
          (global $left (mut i32) (i32.const 0))
          (func (export "spin") (param i32)
            (global.set $left (local.get 0))
            (loop $again
              (global.set $left (i32.sub (global.get $left) (i32.const 1)))
              (br_if $again (i32.gt_s (global.get $left) (i32.const 0))))))"#;

    #[test]
    fn the_epoch_advances_only_while_a_call_runs() {
        let mut config = Config::new();
        config.epoch_interruption(true);
        let engine = Engine::new(&config).unwrap();
        let ticker = EpochTicker::start(&engine).unwrap();
        let module = wasmtime::Module::new(&engine, wat::parse_str(SPIN).unwrap()).unwrap();

        // Idle: ten ticks' worth of waiting past the deadline, and a guest run afterwards
        // sees no tick.
        let mut store = counting_store(&engine);
        let instance = wasmtime::Instance::new(&mut store, &module, &[]).unwrap();
        let spin = instance.get_typed_func::<i32, ()>(&mut store, "spin").unwrap();
        thread::sleep(EPOCH_TICK * 10);
        spin.call(&mut store, 1000).unwrap();
        assert_eq!(*store.data(), 0, "the epoch advanced while no call was running");
        assert!(!ticker.is_ticking());

        // Running: a guest that spins for several ticks sees them.
        {
            let _running = ticker.call_running();
            let started = Instant::now();
            while *store.data() < 3 {
                assert!(started.elapsed() < Duration::from_secs(30), "the epoch never advanced");
                spin.call(&mut store, 1_000_000).unwrap();
            }
        }

        // Idle again: the count stops growing once the call is over.
        thread::sleep(EPOCH_TICK * 3);
        let seen = *store.data();
        store.set_epoch_deadline(1);
        thread::sleep(EPOCH_TICK * 10);
        spin.call(&mut store, 1000).unwrap();
        assert!(
            *store.data() <= seen + 1,
            "ticks went on after the call: {} > {seen}",
            store.data()
        );
    }
}
