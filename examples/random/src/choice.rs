//! `random_choice`: picks one of its `option` blocks, each as likely as its weight.
//!
//! ```hcl
//! resource "random_choice" "region" {
//!   option {
//!     value  = "eu-west-1"
//!     weight = 3         # three times as likely as
//!   }
//!   option {
//!     value = "us-east-1" # this one (weight 1 by default)
//!   }
//! }
//! ```
//!
//! `option` is a nested block (list nesting: as many as the configuration writes, in order,
//! at least one). In the state struct a list block is a `Vec` of a struct of its own, and an
//! error about one block points into it: `option[1].weight`.

use serde::{Deserialize, Serialize};
use terrarium_sdk::{Attr, AttributePath, Diagnostics, Model, Resource, Result, Value};

use crate::rng::Rng;
use crate::{Keepers, read_partial};

/// `random_choice`.
pub struct RandomChoice;

/// Picks one of its options at random, each as likely as its weight.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct ChoiceState {
    /// Arbitrary values that, when changed, replace the resource and so draw a new value.
    #[tf(requires_replace)]
    pub keepers: Keepers,
    /// One value to choose from.
    // Terraform itself refuses a configuration with no option block (min_items).
    #[tf(block, min_items = 1, requires_replace)]
    pub option: Vec<ChoiceOption>,
    /// The value of the chosen option.
    #[tf(computed)]
    pub result: Attr<String>,
}

/// One `option { ... }` block.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct ChoiceOption {
    /// The value result takes if this option is chosen.
    pub value: String,
    /// How likely this option is, relative to the others' weights: above 0, default 1.
    // Null when not configured: weight 1.
    pub weight: Option<f64>,
}

impl Resource for RandomChoice {
    const TYPE_NAME: &'static str = "random_choice";
    type State = ChoiceState;

    fn validate(&self, config: &Value) -> Result<()> {
        #[derive(Deserialize)]
        struct Config {
            option: Attr<Vec<WeightConfig>>,
        }
        // Only the weights matter here; reading ignores the attributes a struct leaves out.
        #[derive(Deserialize)]
        struct WeightConfig {
            weight: Attr<f64>,
        }
        let config: Config = read_partial(config)?;
        let weights: Vec<Attr<f64>> = match config.option {
            Attr::Known(options) => options.into_iter().map(|o| o.weight).collect(),
            _ => Vec::new(),
        };
        check_weights(&weights)
    }

    fn create(&self, planned: ChoiceState) -> Result<ChoiceState> {
        let weights: Vec<f64> = planned.option.iter().map(|o| o.weight.unwrap_or(1.0)).collect();
        check_weights(&weights.iter().map(|w| Attr::Known(*w)).collect::<Vec<_>>())?;
        let chosen = pick(&weights, &mut Rng::Os)?;
        let result = planned.option[chosen].value.clone();
        Ok(ChoiceState { result: result.into(), ..planned })
    }

    fn read(&self, current: ChoiceState) -> Result<Option<ChoiceState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: ChoiceState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

/// Every known weight must be a positive number, and together they must add up to one.
fn check_weights(weights: &[Attr<f64>]) -> Result<()> {
    let mut problems = Diagnostics::new();
    for (i, weight) in weights.iter().enumerate() {
        if let Attr::Known(weight) = weight
            && !(weight.is_finite() && *weight > 0.0)
        {
            problems.push_attribute_error(
                AttributePath::attribute("option").index(i as i64).attr("weight"),
                "Invalid weight",
                format!("A weight must be above 0, not {weight}."),
            );
        }
    }
    let total: f64 = weights.iter().filter_map(Attr::known).sum();
    if problems.is_empty() && total.is_infinite() {
        problems.push_attribute_error(
            "option",
            "Invalid weights",
            "The weights are too large to add up.",
        );
    }
    problems.into_result()
}

/// The index of the chosen weight: a point drawn uniformly along the weights laid end to end.
fn pick(weights: &[f64], rng: &mut Rng) -> Result<usize> {
    let mut point = rng.unit()? * weights.iter().sum::<f64>();
    for (i, weight) in weights.iter().enumerate() {
        if point < *weight {
            return Ok(i);
        }
        point -= weight;
    }
    // Rounding can leave the point just past the end.
    Ok(weights.len().saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_follow_the_weights() {
        let mut rng = Rng::seeded("weights");
        let mut counts = [0u32; 3];
        for _ in 0..4000 {
            counts[pick(&[1.0, 3.0, 0.000_001], &mut rng).unwrap()] += 1;
        }
        assert!((800..1200).contains(&counts[0]), "{counts:?}");
        assert!((2800..3200).contains(&counts[1]), "{counts:?}");
        assert!(counts[2] < 5, "{counts:?}");
    }

    #[test]
    fn a_bad_weight_is_reported_at_its_block() {
        let error =
            check_weights(&[Attr::Known(1.0), Attr::Unknown, Attr::Known(0.0)]).unwrap_err();
        let paths: Vec<String> = error.iter().map(|d| d.attribute.to_string()).collect();
        assert_eq!(paths, ["option[2].weight"]);
        assert!(check_weights(&[Attr::Known(f64::MAX), Attr::Known(f64::MAX)]).is_err());
        assert!(check_weights(&[Attr::Known(0.5), Attr::Unknown]).is_ok());
    }
}
