//! `random_integer`: a whole number from `min` to `max`, leaving out the numbers in
//! `exclude` (a set).
//!
//! Unlike hashicorp/random, changing the range does not always draw a new number: if the
//! current `result` is still allowed (inside the new range and not excluded), the change is
//! an update in place and the number stays. Only a range that rules the number out replaces
//! the resource. Which of the two happens depends on the prior `result`, not only on the
//! attribute that changed, so it is decided in [`Resource::plan`] rather than by a
//! `requires_replace` flag in the schema.
//!
//! Importing takes `RESULT,MIN,MAX` or `RESULT,MIN,MAX,SEED`, as hashicorp/random does:
//! `terraform import random_integer.port 8042,8000,8999`.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use terrarium_sdk::{Attr, AttributePath, Diagnostics, Model, Plan, Resource, Result, Value};

use crate::rng::Rng;
use crate::{Keepers, read_partial};

/// `random_integer`.
pub struct RandomInteger;

/// A random whole number from min to max, both included.
//
// Numbers are `i64`: Terraform's numbers are arbitrary-precision, and one that does not fit
// is refused with an error naming the attribute (the SDK does that when it reads the state).
// `id` and `result` keep their values through updates in place (`use_state_for_unknown`);
// the plan hook makes them unknown when the range rules the number out.
#[derive(Debug, Serialize, Deserialize, Model)]
pub struct IntegerState {
    /// The result, as a string.
    #[tf(computed, use_state_for_unknown)]
    pub id: Attr<String>,
    /// Arbitrary values that, when changed, replace the resource and so draw a new value.
    #[tf(requires_replace)]
    pub keepers: Keepers,
    /// The smallest number the result may be.
    pub min: i64,
    /// The largest number the result may be.
    pub max: i64,
    /// Numbers the result must not be (ports already taken, say).
    pub exclude: Option<BTreeSet<i64>>,
    /// Makes the draw reproducible: the same seed, range and exclusions give the same result.
    #[tf(requires_replace)]
    pub seed: Option<String>,
    /// The random number.
    #[tf(computed, use_state_for_unknown)]
    pub result: Attr<i64>,
}

impl Resource for RandomInteger {
    const TYPE_NAME: &'static str = "random_integer";
    type State = IntegerState;

    fn validate(&self, config: &Value) -> Result<()> {
        read_partial::<Range>(config)?.check()
    }

    /// Keeps the number through a range change that still allows it; replaces the resource
    /// (so a new number is drawn) when the new range rules it out.
    fn plan(&self, plan: &mut Plan) -> Result<()> {
        // A new resource, or one replaced because its keepers or seed changed, draws anyway.
        if plan.is_create() || plan.is_replace() {
            return Ok(());
        }
        let changed: Vec<&str> =
            ["min", "max", "exclude"].into_iter().filter(|name| plan.changed(name)).collect();
        if changed.is_empty() {
            return Ok(());
        }
        let prior: IntegerState = plan.prior()?;
        let range: Range = read_partial(&plan.planned_state)?;
        // A range not known until apply might rule the number out: replace to be safe.
        let keeps_result =
            match (prior.result, range.min.known(), range.max.known(), &range.exclude) {
                (_, _, _, Attr::Unknown) => false,
                (Attr::Known(result), Some(min), Some(max), exclude) => {
                    (*min..=*max).contains(&result)
                        && !exclude.known().is_some_and(|e| e.contains(&result))
                }
                _ => false,
            };
        if !keeps_result {
            plan.requires_replace.extend(changed.into_iter().map(AttributePath::attribute));
            plan.set_attribute("result", Value::unknown())?;
            plan.set_attribute("id", Value::unknown())?;
        }
        Ok(())
    }

    fn create(&self, planned: IntegerState) -> Result<IntegerState> {
        let range = Range {
            min: planned.min.into(),
            max: planned.max.into(),
            exclude: planned.exclude.clone().into(),
        };
        // Validation may have seen unknowns; everything is known now.
        range.check()?;
        let mut rng = Rng::from_seed(planned.seed.as_deref());
        let result = draw(
            planned.min,
            planned.max,
            planned.exclude.as_ref().unwrap_or(&BTreeSet::new()),
            &mut rng,
        )?;
        Ok(IntegerState { id: result.to_string().into(), result: result.into(), ..planned })
    }

    /// Only reached when the plan kept the number: the new range still allows it.
    fn update(&self, _prior: IntegerState, planned: IntegerState) -> Result<IntegerState> {
        Ok(planned)
    }

    fn import(&self, id: &str) -> Result<IntegerState> {
        let parts: Vec<&str> = id.split(',').collect();
        let (result, min, max, seed) = match parts.as_slice() {
            [result, min, max] => (*result, *min, *max, None),
            [result, min, max, seed] => (*result, *min, *max, Some(seed.to_string())),
            _ => return Err(import_error(id, "expected RESULT,MIN,MAX or RESULT,MIN,MAX,SEED")),
        };
        let number = |what: &str, text: &str| {
            text.trim()
                .parse::<i64>()
                .map_err(|_| import_error(id, &format!("{what} {text:?} is not a whole number")))
        };
        let (result, min, max) =
            (number("result", result)?, number("min", min)?, number("max", max)?);
        if !(min..=max).contains(&result) {
            return Err(import_error(id, &format!("{result} is not from {min} to {max}")));
        }
        Ok(IntegerState {
            id: result.to_string().into(),
            keepers: None,
            min,
            max,
            exclude: None,
            seed,
            result: result.into(),
        })
    }

    fn read(&self, current: IntegerState) -> Result<Option<IntegerState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: IntegerState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

fn import_error(id: &str, problem: &str) -> Diagnostics {
    Diagnostics::error(
        "Invalid import ID",
        format!("Cannot import random_integer from {id:?}: {problem}."),
    )
}

/// `min`, `max` and `exclude` as a configuration or plan holds them: any may be unknown.
#[derive(Debug, Deserialize)]
struct Range {
    min: Attr<i64>,
    max: Attr<i64>,
    exclude: Attr<BTreeSet<i64>>,
}

impl Range {
    fn check(&self) -> Result<()> {
        let (Some(&min), Some(&max)) = (self.min.known(), self.max.known()) else {
            return Ok(());
        };
        if min > max {
            return Err(Diagnostics::attribute_error(
                "max",
                "Invalid range",
                format!("max ({max}) must not be less than min ({min})."),
            ));
        }
        if let Attr::Known(exclude) = &self.exclude
            && allowed(min, max, exclude) == 0
        {
            return Err(Diagnostics::attribute_error(
                "exclude",
                "Nothing left to draw",
                format!("exclude rules out every number from {min} to {max}."),
            ));
        }
        Ok(())
    }
}

/// How many numbers from `min` to `max` are not excluded (up to 2^64).
fn allowed(min: i64, max: i64, exclude: &BTreeSet<i64>) -> u128 {
    let span = (i128::from(max) - i128::from(min) + 1) as u128;
    span - exclude.range(min..=max).count() as u128
}

/// Draws uniformly among the allowed numbers, in bounded time however many are excluded:
/// pick the k-th allowed number, then step over the excluded ones at or below it.
fn draw(min: i64, max: i64, exclude: &BTreeSet<i64>, rng: &mut Rng) -> Result<i64> {
    let mut candidate = i128::from(min) + rng.below(allowed(min, max, exclude))? as i128;
    for &excluded in exclude.range(min..=max) {
        if i128::from(excluded) <= candidate {
            candidate += 1;
        } else {
            break;
        }
    }
    // In range by construction: there are enough allowed numbers above `min`.
    Ok(candidate as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_skip_excluded_numbers_and_cover_the_rest() {
        let exclude = BTreeSet::from([2, 3, 5, 100]);
        let mut rng = Rng::seeded("cover");
        let mut seen = BTreeSet::new();
        for _ in 0..300 {
            let n = draw(1, 6, &exclude, &mut rng).unwrap();
            assert!((1..=6).contains(&n) && !exclude.contains(&n), "{n}");
            seen.insert(n);
        }
        assert_eq!(seen, BTreeSet::from([1, 4, 6]));
        // The whole i64 range.
        draw(i64::MIN, i64::MAX, &BTreeSet::new(), &mut rng).unwrap();
        assert_eq!(draw(7, 7, &BTreeSet::new(), &mut rng).unwrap(), 7);
    }

    #[test]
    fn seeded_draws_repeat() {
        let once = |seed| draw(1, 1_000_000, &BTreeSet::new(), &mut Rng::seeded(seed)).unwrap();
        assert_eq!(once("x"), once("x"));
    }

    #[test]
    fn range_problems_point_at_their_attribute() {
        let range = |min, max, exclude: &[i64]| Range {
            min: Attr::Known(min),
            max: Attr::Known(max),
            exclude: Attr::Known(exclude.iter().copied().collect()),
        };
        let path = |r: Range| r.check().unwrap_err().iter().next().unwrap().attribute.to_string();
        assert_eq!(path(range(5, 4, &[])), "max");
        assert_eq!(path(range(1, 2, &[1, 2, 3])), "exclude");
        assert!(range(1, 3, &[1, 2]).check().is_ok());
        assert!(
            Range { min: Attr::Unknown, max: Attr::Known(0), exclude: Attr::Null }.check().is_ok()
        );
    }

    #[test]
    fn import_reads_result_min_max_and_seed() {
        let state = RandomInteger.import("15,1,20").unwrap();
        assert_eq!(
            (state.result, state.min, state.max, state.seed),
            (Attr::Known(15), 1, 20, None)
        );
        assert_eq!(state.id, Attr::Known("15".to_string()));
        assert_eq!(RandomInteger.import("3,1,5,s").unwrap().seed.as_deref(), Some("s"));
        for bad in ["", "1,2", "x,1,2", "30,1,20", "1,2,3,4,5"] {
            assert!(RandomInteger.import(bad).is_err(), "{bad}");
        }
    }
}
