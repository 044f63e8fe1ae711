//! Logging into Terraform's provider log (what `TF_LOG_PROVIDER=debug` shows), through the
//! host.
//!
//! ```
//! use terrarium_sdk::log;
//!
//! let id = "42";
//! log::info!("created server", id = id, size = 3);   // a message with fields
//! log::debug!("retrying after {} ms", 250);           // a formatted message
//! ```
//!
//! A message with fields is taken as written (`{}` is not formatted there); field values
//! are written with `Display`, and those that read as JSON (numbers, `true`) are logged as
//! JSON values. Nothing is formatted unless the host would write the message. Outside a
//! component (native unit tests) logging does nothing.

use std::fmt;

/// How important a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Finest detail.
    Trace,
    /// What a provider author needs to debug.
    Debug,
    /// Notable events.
    Info,
    /// Something looks wrong, but the call goes on.
    Warn,
    /// The call fails.
    Error,
}

/// Whether the host would write a message at `level`.
pub fn enabled(level: Level) -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        crate::__private::bindings::terrarium::provider::log::enabled(to_wit(level))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = level;
        false
    }
}

/// Writes a message with fields.
pub fn log(level: Level, message: &str, fields: &[(&str, &dyn fmt::Display)]) {
    #[cfg(target_arch = "wasm32")]
    {
        use crate::__private::bindings::terrarium::provider::log as wit;
        let fields: Vec<wit::Field> = fields
            .iter()
            .map(|(key, value)| wit::Field { key: key.to_string(), value: value.to_string() })
            .collect();
        wit::log(to_wit(level), message, &fields);
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (level, message, fields);
    }
}

#[cfg(target_arch = "wasm32")]
fn to_wit(level: Level) -> crate::__private::bindings::terrarium::provider::log::Level {
    use crate::__private::bindings::terrarium::provider::log::Level as L;
    match level {
        Level::Trace => L::Trace,
        Level::Debug => L::Debug,
        Level::Info => L::Info,
        Level::Warn => L::Warn,
        Level::Error => L::Error,
    }
}

#[doc(hidden)]
#[macro_export]
macro_rules! __log_at {
    ($level:expr, $message:literal, $($key:ident = $value:expr),+ $(,)?) => {
        if $crate::log::enabled($level) {
            $crate::log::log($level, $message, &[$((::core::stringify!($key), &$value as &dyn ::core::fmt::Display)),+]);
        }
    };
    ($level:expr, $($format:tt)+) => {
        if $crate::log::enabled($level) {
            $crate::log::log($level, &::std::format!($($format)+), &[]);
        }
    };
}

/// Logs at trace level: `trace!("message", key = value, ...)` or `trace!("format {}", x)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_trace {
    ($($arg:tt)+) => { $crate::__log_at!($crate::log::Level::Trace, $($arg)+) };
}

/// Logs at debug level: `debug!("message", key = value, ...)` or `debug!("format {}", x)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_debug {
    ($($arg:tt)+) => { $crate::__log_at!($crate::log::Level::Debug, $($arg)+) };
}

/// Logs at info level: `info!("message", key = value, ...)` or `info!("format {}", x)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_info {
    ($($arg:tt)+) => { $crate::__log_at!($crate::log::Level::Info, $($arg)+) };
}

/// Logs at warn level: `warn!("message", key = value, ...)` or `warn!("format {}", x)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_warn {
    ($($arg:tt)+) => { $crate::__log_at!($crate::log::Level::Warn, $($arg)+) };
}

/// Logs at error level: `error!("message", key = value, ...)` or `error!("format {}", x)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_error {
    ($($arg:tt)+) => { $crate::__log_at!($crate::log::Level::Error, $($arg)+) };
}

#[doc(inline)]
pub use crate::__log_debug as debug;
#[doc(inline)]
pub use crate::__log_error as error;
#[doc(inline)]
pub use crate::__log_info as info;
#[doc(inline)]
pub use crate::__log_trace as trace;
#[doc(inline)]
pub use crate::__log_warn as warn;
