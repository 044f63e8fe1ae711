use terrarium_model::schema::Block;
use terrarium_model::{DynamicValue, Type, Value};

use super::*;

fn obj<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn dynamic(ty: Type, value: Value) -> Value {
    Value::Dynamic(Box::new(DynamicValue { ty, value }))
}

/// `nic { network = "...", meta = <dynamic> }`, a list of blocks.
fn nic_block() -> Block {
    use crate::schema::{Attribute, Block, NestedBlock, Schema};
    Schema::new()
        .block(NestedBlock::list(
            "nic",
            Block::new()
                .attribute(Attribute::string("network").optional())
                .attribute(Attribute::new("meta", Type::Dynamic).optional()),
        ))
        .to_model()
        .block
}

/// What Terraform sends for `meta = { tags = tolist(["a", "b"]) }` in one `nic` block: the
/// blocks as a tuple with its type, the values inside it bare.
fn terraform_form(tags: Value, tags_type: Type) -> Value {
    let meta_type = Type::object([("tags", tags_type)]);
    let element = Type::object([("network", Type::String), ("meta", meta_type)]);
    obj([(
        "nic",
        dynamic(
            Type::Tuple(vec![element]),
            Value::Tuple(vec![obj([("network", s("blue")), ("meta", obj([("tags", tags)]))])]),
        ),
    )])
}

fn tags() -> Value {
    Value::List(vec![s("a"), s("b")])
}

/// A guest that reads `meta` as plain data writes it back with an inferred type (a tuple
/// for the list); the host gives it back the type Terraform planned, then Terraform's form.
#[test]
fn an_unchanged_dynamic_value_keeps_its_planned_type_inside_blocks() {
    let block = nic_block();
    let planned = terraform_form(tags(), Type::list(Type::String));
    let collections = blocks_as_collections(planned.clone(), &block);
    let Value::List(ref nics) = collections.attr("nic").cloned().unwrap_or(Value::Null) else {
        panic!("nic is not a list of blocks: {collections:?}")
    };
    assert_eq!(nics.len(), 1);
    // What the guest wrote: the blocks as a list, meta's type inferred from its data.
    let (meta_type, meta) = infer_type(obj([("tags", tags())]));
    let written = obj([(
        "nic",
        Value::List(vec![obj([("network", s("blue")), ("meta", dynamic(meta_type, meta))])]),
    )]);
    let kept = typed_blocks(keep_dynamic_types(&collections, written.clone()), &block);
    assert_eq!(kept, planned);
    // Without the reference, the inferred type stays: a tuple of two strings.
    let inferred = terraform_form(
        Value::Tuple(vec![s("a"), s("b")]),
        Type::Tuple(vec![Type::String, Type::String]),
    );
    assert_eq!(typed_blocks(written, &block), inferred);
}

/// A dynamic value whose data changed keeps the type it came back with.
#[test]
fn a_changed_dynamic_value_keeps_its_own_type() {
    let block = nic_block();
    let planned = terraform_form(tags(), Type::list(Type::String));
    let changed = Value::Tuple(vec![s("a"), s("c")]);
    let returned = terraform_form(changed.clone(), Type::Tuple(vec![Type::String, Type::String]));
    let kept = keep_dynamic_types(
        &blocks_as_collections(planned, &block),
        blocks_as_collections(returned.clone(), &block),
    );
    assert_eq!(typed_blocks(kept, &block), returned);
}

/// Stored state as an upgrade gets it (JSON without a schema: objects, tuples, strings,
/// numbers, bools, nulls).
fn raw_state(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Array(items) => Value::Tuple(items.iter().map(raw_state).collect()),
        serde_json::Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), raw_state(v))).collect())
        }
        serde_json::Value::String(text) => s(text),
        serde_json::Value::Number(x) => {
            terrarium_model::Number::parse(&x.to_string()).map_or(Value::Null, Value::Number)
        }
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Null => Value::Null,
    }
}

/// Terraform stores a list of blocks typed `dynamic` with its type; an upgrade reads it as
/// the list of blocks the code writes, each `dynamic` value with its stored type. A stored
/// value of another shape (an older schema's plain list) is left for the upgrade to read.
#[test]
fn stored_blocks_holding_a_dynamic_value_are_read_as_a_list() {
    let block = nic_block();
    let stored = raw_state(&serde_json::json!({
        "nic": {
            "type": ["tuple", [["object", {
                "network": "string",
                "meta": ["object", {"tags": ["list", "string"]}],
            }]]],
            "value": [{"network": "blue", "meta": {"tags": ["a", "b"]}}],
        },
    }));
    let meta = dynamic(Type::object([("tags", Type::list(Type::String))]), obj([("tags", tags())]));
    let expected = obj([("nic", Value::List(vec![obj([("network", s("blue")), ("meta", meta)])]))]);
    assert_eq!(raw_blocks_as_collections(stored, &block), expected);
    assert_eq!(typed_blocks(expected, &block), terraform_form(tags(), Type::list(Type::String)));
    let older = raw_state(&serde_json::json!({"nic": [{"network": "blue"}]}));
    assert_eq!(raw_blocks_as_collections(older.clone(), &block), older);
}
