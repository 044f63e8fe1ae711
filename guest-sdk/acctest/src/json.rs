//! Helpers for terraform's JSON outputs.

use anyhow::Context as _;
use serde_json::Value;

/// One provider's entry in `terraform providers schema -json` output.
pub fn provider_schema<'a>(schemas: &'a Value, source: &str) -> anyhow::Result<&'a Value> {
    schemas["provider_schemas"].get(source).with_context(|| {
        let known: Vec<_> = schemas["provider_schemas"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        format!("no schema for {source} in `providers schema -json`; it has {known:?}")
    })
}

/// The first place where `expected` and `actual` differ, as a JSON-pointer-like path with both
/// values, or None when they are equal. Object key order is ignored, array order is not.
pub fn first_difference(expected: &Value, actual: &Value) -> Option<String> {
    fn walk(path: &mut String, expected: &Value, actual: &Value) -> Option<String> {
        match (expected, actual) {
            (Value::Object(e), Value::Object(a)) => {
                let mut keys: Vec<&String> = e.keys().chain(a.keys()).collect();
                keys.sort();
                keys.dedup();
                for key in keys {
                    let len = path.len();
                    path.push('/');
                    path.push_str(key);
                    let found = match (e.get(key), a.get(key)) {
                        (Some(ev), Some(av)) => walk(path, ev, av),
                        (Some(ev), None) => Some(format!("{path}: missing, expected {ev}")),
                        (None, Some(av)) => Some(format!("{path}: unexpected {av}")),
                        (None, None) => None,
                    };
                    if found.is_some() {
                        return found;
                    }
                    path.truncate(len);
                }
                None
            }
            (Value::Array(e), Value::Array(a)) => {
                for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                    let len = path.len();
                    path.push_str(&format!("/{i}"));
                    if let Some(found) = walk(path, ev, av) {
                        return Some(found);
                    }
                    path.truncate(len);
                }
                (e.len() != a.len())
                    .then(|| format!("{path}: {} elements, expected {}", a.len(), e.len()))
            }
            (e, a) if e == a => None,
            (e, a) => {
                Some(format!("{}: {a}, expected {e}", if path.is_empty() { "/" } else { path }))
            }
        }
    }
    walk(&mut String::new(), expected, actual)
}

/// Fails with the first difference (and both documents) unless `expected == actual`, ignoring
/// object key order.
pub fn assert_same(what: &str, expected: &Value, actual: &Value) -> anyhow::Result<()> {
    match first_difference(expected, actual) {
        None => Ok(()),
        Some(difference) => anyhow::bail!(
            "{what} differ at {difference}\n--- expected ---\n{}\n--- actual ---\n{}",
            pretty(expected),
            pretty(actual)
        ),
    }
}

pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Replaces every string value for which `is_volatile` holds with `replacement`, recursively.
pub fn mask_strings(value: &mut Value, is_volatile: &dyn Fn(&str) -> bool, replacement: &str) {
    match value {
        Value::String(s) if is_volatile(s) => *s = replacement.to_owned(),
        Value::Array(items) => {
            items.iter_mut().for_each(|v| mask_strings(v, is_volatile, replacement))
        }
        Value::Object(map) => {
            map.values_mut().for_each(|v| mask_strings(v, is_volatile, replacement))
        }
        _ => {}
    }
}

/// Removes the object members named `key` everywhere in `value`.
pub fn remove_keys(value: &mut Value, key: &str) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| remove_keys(v, key)),
        Value::Object(map) => {
            map.remove(key);
            map.values_mut().for_each(|v| remove_keys(v, key));
        }
        _ => {}
    }
}

/// The managed and data resources in `terraform show -json` state output, by address.
pub fn state_resources(state: &Value) -> Vec<(String, Value)> {
    state["values"]["root_module"]["resources"]
        .as_array()
        .map(|resources| {
            resources
                .iter()
                .map(|r| {
                    (r["address"].as_str().unwrap_or_default().to_owned(), r["values"].clone())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The `values` of the resource at `address` in `terraform show -json` state output.
pub fn state_values<'a>(state: &'a Value, address: &str) -> anyhow::Result<&'a Value> {
    state_resource(state, address).map(|r| &r["values"])
}

/// The whole entry of the resource at `address` in `terraform show -json` state output
/// (`values`, `sensitive_values`, `identity`, `identity_schema_version`, ...).
pub fn state_resource<'a>(state: &'a Value, address: &str) -> anyhow::Result<&'a Value> {
    state["values"]["root_module"]["resources"]
        .as_array()
        .and_then(|resources| resources.iter().find(|r| r["address"] == address))
        .with_context(|| format!("no {address} in state:\n{}", pretty(state)))
}

/// The instances of the resource `type_name.name` in a raw `terraform.tfstate` document
/// (format version 4), each with `schema_version`, `attributes`, `identity`, ...
pub fn raw_state_instances<'a>(
    tfstate: &'a Value,
    type_name: &str,
    name: &str,
) -> anyhow::Result<&'a Vec<Value>> {
    tfstate["resources"]
        .as_array()
        .and_then(|resources| {
            resources
                .iter()
                .find(|r| r["mode"] == "managed" && r["type"] == type_name && r["name"] == name)
        })
        .and_then(|r| r["instances"].as_array())
        .with_context(|| {
            format!("no {type_name}.{name} in terraform.tfstate:\n{}", pretty(tfstate))
        })
}

/// The `change.actions` of every resource change in plan JSON, by address.
pub fn plan_actions(plan: &Value) -> Vec<(String, Vec<String>)> {
    plan["resource_changes"]
        .as_array()
        .map(|changes| {
            changes
                .iter()
                .map(|c| {
                    let actions = c["change"]["actions"]
                        .as_array()
                        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
                        .unwrap_or_default();
                    (c["address"].as_str().unwrap_or_default().to_owned(), actions)
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn first_difference_ignores_key_order_and_names_the_path() {
        let a = json!({"a": 1, "b": {"c": [1, 2, {"d": "x"}]}});
        let b = json!({"b": {"c": [1, 2, {"d": "x"}]}, "a": 1});
        assert_eq!(first_difference(&a, &b), None);

        let c = json!({"a": 1, "b": {"c": [1, 2, {"d": "y"}]}});
        assert_eq!(first_difference(&a, &c).as_deref(), Some("/b/c/2/d: \"y\", expected \"x\""));
        let d = json!({"a": 1, "b": {"c": [1, 2]}});
        assert_eq!(first_difference(&a, &d).as_deref(), Some("/b/c: 2 elements, expected 3"));
        let e = json!({"a": 1});
        assert!(first_difference(&a, &e).unwrap().starts_with("/b: missing"));
        assert!(assert_same("docs", &a, &e).is_err());
    }

    #[test]
    fn masking_and_key_removal_reach_every_level() {
        let mut v = json!({"id": "123456789", "x": ["123456789", {"y": "keep", "timestamp": "t"}]});
        mask_strings(&mut v, &|s| s.bytes().all(|b| b.is_ascii_digit()), "<n>");
        remove_keys(&mut v, "timestamp");
        assert_eq!(v, json!({"id": "<n>", "x": ["<n>", {"y": "keep"}]}));
    }
}
