//! The `random_shuffle` data source: `input` in a random order given by `seed`.
//!
//! Terraform reads a data source again on every plan and shows what changed, so a data
//! source that drew fresh randomness on each read would never let a plan settle. This one
//! is random in the sense a seeded shuffle is: the order looks random, and the same input
//! and seed give the same order on every read (and in every version of this provider). For
//! a shuffle drawn once and kept, use a resource with `keepers` instead.

use serde::{Deserialize, Serialize};
use terrarium_sdk::{Attr, DataSource, Diagnostics, Model, Result, Value};

use crate::read_partial;
use crate::rng::Rng;

/// `data "random_shuffle"`.
pub struct RandomShuffle;

/// The input list in an order given by the seed: the same input and seed, the same order.
//
// The configuration Terraform hands to `DataSource::read`, and the state it returns.
// Terraform reads a data source only once its configuration is wholly known, so nothing
// here can be unknown: `Option` (for null) is enough.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct ShuffleState {
    /// The list to shuffle.
    pub input: Vec<String>,
    /// Decides the order.
    pub seed: String,
    /// How many elements to return, at most the length of input. Default: all of them.
    pub result_count: Option<i64>,
    /// The shuffled list.
    #[tf(computed)]
    pub result: Option<Vec<String>>,
}

impl DataSource for RandomShuffle {
    const TYPE_NAME: &'static str = "random_shuffle";
    type State = ShuffleState;

    fn validate(&self, config: &Value) -> Result<()> {
        #[derive(Deserialize)]
        struct Config {
            input: Attr<Vec<Attr<String>>>,
            result_count: Attr<i64>,
        }
        let config: Config = read_partial(config)?;
        check_count(config.result_count.known().copied(), config.input.known().map(Vec::len))
    }

    fn read(&self, config: ShuffleState) -> Result<ShuffleState> {
        check_count(config.result_count, Some(config.input.len()))?;
        let mut result = config.input.clone();
        Rng::seeded(&config.seed).shuffle(&mut result)?;
        if let Some(count) = config.result_count {
            // Checked above: from 0 to the input's length.
            result.truncate(count as usize);
        }
        Ok(ShuffleState { result: Some(result), ..config })
    }
}

/// `result_count` must be from 0 to the length of `input` (when both are known).
fn check_count(count: Option<i64>, input_len: Option<usize>) -> Result<()> {
    match (count, input_len) {
        (Some(count), _) if count < 0 => Err(Diagnostics::attribute_error(
            "result_count",
            "Invalid result_count",
            "result_count cannot be negative.",
        )),
        (Some(count), Some(len)) if count as u64 > len as u64 => Err(Diagnostics::attribute_error(
            "result_count",
            "Invalid result_count",
            format!("result_count is {count}, but input has only {len} elements."),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shuffle(input: &[&str], seed: &str, count: Option<i64>) -> Result<Vec<String>> {
        let config = ShuffleState {
            input: input.iter().map(|s| s.to_string()).collect(),
            seed: seed.to_string(),
            result_count: count,
            result: None,
        };
        Ok(RandomShuffle.read(config)?.result.unwrap_or_default())
    }

    #[test]
    fn the_same_seed_gives_the_same_order() {
        let input = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let first = shuffle(&input, "prod", None).unwrap();
        assert_eq!(first, shuffle(&input, "prod", None).unwrap());
        assert_ne!(first, shuffle(&input, "test", None).unwrap());
        let mut sorted = first.clone();
        sorted.sort();
        assert_eq!(sorted, input);
        assert_eq!(shuffle(&input, "prod", Some(3)).unwrap(), first[..3]);
    }

    #[test]
    fn result_count_is_checked() {
        assert!(shuffle(&["a"], "s", Some(2)).is_err());
        assert!(shuffle(&["a"], "s", Some(-1)).is_err());
        assert_eq!(shuffle(&["a"], "s", Some(0)).unwrap(), Vec::<String>::new());
    }
}
