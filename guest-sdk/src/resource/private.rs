//! [`PrivateState`]: the provider-private data Terraform keeps beside a state.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::diag::{Diagnostics, Result};

/// Provider-private data kept with a resource's state: Terraform stores it and hands it
/// back, but never shows it. Keys map to JSON values; keys starting with `.` are reserved
/// for the SDK.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrivateState {
    entries: serde_json::Map<String, serde_json::Value>,
    /// The bytes it was read from, handed back unchanged unless an entry is set: private
    /// state written by something else must survive.
    original: Vec<u8>,
    changed: bool,
}

impl PrivateState {
    /// Decodes stored bytes; anything that is not a JSON object (no private state yet, or
    /// another SDK's) reads as empty.
    pub fn decode(bytes: &[u8]) -> Self {
        let entries = match serde_json::from_slice(bytes) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        PrivateState { entries, original: bytes.to_vec(), changed: false }
    }

    /// The bytes Terraform stores.
    pub fn encode(&self) -> Vec<u8> {
        if !self.changed {
            self.original.clone()
        } else if self.entries.is_empty() {
            Vec::new()
        } else {
            serde_json::to_vec(&self.entries).unwrap_or_default()
        }
    }

    /// Reads the value under `key`, if there is one of type `T`.
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        self.entries.get(key).and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// Stores `value` under `key`.
    pub fn set<T: Serialize>(&mut self, key: &str, value: &T) -> Result<()> {
        let value = serde_json::to_value(value)
            .map_err(|e| Diagnostics::error("Cannot store private state", format!("{key}: {e}")))?;
        self.entries.insert(key.to_string(), value);
        self.changed = true;
        Ok(())
    }

    /// Removes the value under `key`.
    pub fn remove(&mut self, key: &str) {
        self.changed |= self.entries.remove(key).is_some();
    }
}
