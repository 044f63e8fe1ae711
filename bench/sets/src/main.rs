//! Times what terrarium-sdk does with large sets: 10,000-element sets planned (create, no
//! change, one element added), applied with the consistency check, and compared, natively
//! and in-process. Run it optimised:
//!
//! ```text
//! cargo run --release -p sets-bench            # 10,000 elements
//! cargo run --release -p sets-bench -- 50000   # another size
//! ```
//!
//! For scale it also times the pairwise (O(n²)) set comparison the SDK used before, on the
//! same sets; terraform-plugin-framework's set handling is quadratic in the same way
//! (framework issues #775, #1314, #1322).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;
use terrarium_sdk::testing::Harness;
use terrarium_sdk::{AnyResource, Attr, Model, Provider, Resource, Result, Set, Value, same_value};

#[derive(Default)]
struct Bench;

impl Provider for Bench {
    fn resources(&self) -> Vec<Box<dyn AnyResource + '_>> {
        vec![Box::new(Firewall)]
    }
}

struct Firewall;

#[derive(Serialize, Deserialize, Model)]
struct FirewallState {
    #[tf(computed, use_state_for_unknown)]
    id: Attr<String>,
    /// A set of plain strings.
    allowed: Set<String>,
    /// A set of nested objects, each with a computed ID kept through updates.
    #[tf(nested)]
    rules: Set<Rule>,
}

#[derive(Serialize, Deserialize, Model)]
struct Rule {
    port: i64,
    #[tf(default = "tcp")]
    protocol: Attr<String>,
    #[tf(computed, use_state_for_unknown)]
    rule_id: Attr<String>,
}

impl Resource for Firewall {
    const TYPE_NAME: &'static str = "bench_firewall";
    type State = FirewallState;

    fn create(&self, mut planned: FirewallState) -> Result<FirewallState> {
        planned.id = Attr::Known("fw".into());
        assign_ids(&mut planned);
        Ok(planned)
    }

    fn update(&self, _prior: FirewallState, mut planned: FirewallState) -> Result<FirewallState> {
        assign_ids(&mut planned);
        Ok(planned)
    }

    fn read(&self, current: FirewallState) -> Result<Option<FirewallState>> {
        // Nothing outside Terraform's state to look at: keep the state as it is.
        Ok(Some(current))
    }

    fn delete(&self, _prior: FirewallState) -> Result<()> {
        // Nothing outside Terraform's state to delete: Terraform forgets it.
        Ok(())
    }
}

fn assign_ids(state: &mut FirewallState) {
    for rule in &mut state.rules.0 {
        if rule.rule_id.is_unknown() {
            rule.rule_id = Attr::Known(format!("rule-{}", rule.port));
        }
    }
}

fn config(n: usize, extra: bool) -> serde_json::Value {
    // Listed in reverse: a set's order means nothing, and matching must not depend on it.
    let mut ports: Vec<usize> = (0..n).rev().collect();
    if extra {
        ports.push(n);
    }
    json!({
        "allowed": ports.iter().map(|p| format!("10.0.{}.{}/32", p / 256, p % 256)).collect::<Vec<_>>(),
        "rules": ports.iter().map(|p| json!({"port": p})).collect::<Vec<_>>(),
    })
}

/// Pairwise multiset comparison: for each element, a linear search of the other set.
fn quadratic_same_elements(x: &[Value], y: &[Value]) -> bool {
    let mut matched = vec![false; y.len()];
    x.len() == y.len()
        && x.iter().all(|a| {
            match y.iter().enumerate().find(|(i, b)| !matched[*i] && same_value(a, b)) {
                Some((i, _)) => {
                    matched[i] = true;
                    true
                }
                None => false,
            }
        })
}

fn time<T>(label: &str, f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    println!("{label:<58} {:>9.1} ms", took.as_secs_f64() * 1000.0);
    (out, took)
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(10_000);
    println!("terrarium-sdk sets: {n} elements per set (a string set and a nested-object set)");
    let h = Harness::new(Bench);

    let total = Instant::now();
    let (created, _) = time("create: validate + plan + apply + consistency checks", || {
        h.create("bench_firewall", config(n, false))
    });
    let created = created?;
    let cfg = h.config("bench_firewall", config(n, false))?;
    let (plan, _) = time("no-change plan (elements matched, defaults, checks)", || {
        h.plan("bench_firewall", &created.state, &cfg)
    });
    if plan?.planned_state != created.state {
        return Err("the no-change plan changed something".into());
    }
    let (updated, _) = time("update: one element added (IDs kept by set matching)", || {
        h.update("bench_firewall", &created.state, config(n, true))
    });
    let updated = updated?;
    let kept = match updated.state.attr("rules") {
        Some(Value::Set(rules)) => {
            rules.iter().filter(|r| r.attr("rule_id").is_some_and(|id| !id.is_unknown())).count()
        }
        _ => 0,
    };
    if kept != n + 1 {
        return Err(format!("expected {} rule IDs, found {kept}", n + 1).into());
    }
    println!("{:<58} {:>9.1} ms", "total of the three", total.elapsed().as_secs_f64() * 1000.0);

    let (Some(Value::Set(a)), Some(Value::Set(b))) =
        (created.state.attr("rules"), updated.state.attr("rules"))
    else {
        return Err("rules is not a set".into());
    };
    let mut shuffled = a.clone();
    shuffled.reverse();
    let (same, fast) = time("same_value on two equal sets (sorted canonical keys)", || {
        same_value(&Value::Set(a.clone()), &Value::Set(shuffled.clone()))
    });
    if !same || same_value(&Value::Set(a.clone()), &Value::Set(b.clone())) {
        return Err("set comparison is wrong".into());
    }
    // Quadratic: a minute and more beyond this size.
    if n > 20_000 {
        println!("(pairwise comparison skipped above 20,000 elements)");
        return Ok(());
    }
    let (same, slow) = time("the same comparison, pairwise (O(n^2), for scale)", || {
        quadratic_same_elements(a, &shuffled)
    });
    if !same {
        return Err("pairwise comparison is wrong".into());
    }
    println!("pairwise / sorted: {:.0}x", slow.as_secs_f64() / fast.as_secs_f64().max(1e-9));
    Ok(())
}
