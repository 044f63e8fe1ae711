//! The behaviour a component declares (WIT `behaviour`), in the framework's neutral form.

use std::collections::BTreeMap;

use terrarium_framework::declared::{
    AttributeBehaviour, DeclaredDefault, DeclaredReplace, DeclaredValidator, SchemaBehaviour,
};

use super::bindings::{ConvertError, value_from_wit, wit_behaviour as wb};
use crate::runtime::bindings::number_from_wit;

/// Every schema's declared behaviour, by kind and name as in `get-schema`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderBehaviour {
    pub provider: SchemaBehaviour,
    pub resources: BTreeMap<String, SchemaBehaviour>,
    pub data_sources: BTreeMap<String, SchemaBehaviour>,
    pub ephemeral_resources: BTreeMap<String, SchemaBehaviour>,
    pub list_resources: BTreeMap<String, SchemaBehaviour>,
    pub actions: BTreeMap<String, SchemaBehaviour>,
}

pub fn provider_behaviour_from_wit(
    b: wb::ProviderBehaviour,
) -> Result<ProviderBehaviour, ConvertError> {
    Ok(ProviderBehaviour {
        provider: schema_behaviour(b.provider)
            .map_err(|e| ConvertError::Other(format!("behaviour of the provider: {e}")))?,
        resources: named("resource", b.resources)?,
        data_sources: named("data source", b.data_sources)?,
        ephemeral_resources: named("ephemeral resource", b.ephemeral_resources)?,
        list_resources: named("list resource", b.list_resources)?,
        actions: named("action", b.actions)?,
    })
}

fn named(
    kind: &str,
    list: Vec<wb::NamedBehaviour>,
) -> Result<BTreeMap<String, SchemaBehaviour>, ConvertError> {
    let mut out = BTreeMap::new();
    for n in list {
        let behaviour = schema_behaviour(n.behaviour)
            .map_err(|e| ConvertError::Other(format!("behaviour of {kind} {:?}: {e}", n.name)))?;
        if out.insert(n.name.clone(), behaviour).is_some() {
            return Err(ConvertError::Other(format!(
                "the behaviour of {kind} {:?} is declared twice",
                n.name
            )));
        }
    }
    Ok(out)
}

fn schema_behaviour(b: wb::SchemaBehaviour) -> Result<SchemaBehaviour, ConvertError> {
    Ok(SchemaBehaviour {
        attributes: b.attributes.into_iter().map(attribute).collect::<Result<_, _>>()?,
        replace_blocks: b.replace_blocks,
        plan_hook: b.plan_hook,
    })
}

fn attribute(a: wb::AttributeBehaviour) -> Result<AttributeBehaviour, ConvertError> {
    let path = a.path.join(".");
    let default = match a.default {
        None => None,
        Some(wb::DefaultValue::Value(v)) => Some(DeclaredDefault::Value(
            value_from_wit(v)
                .map_err(|e| ConvertError::Other(format!("the default of {path:?}: {e}")))?,
        )),
        Some(wb::DefaultValue::Computed(id)) => Some(DeclaredDefault::Hook(id)),
    };
    Ok(AttributeBehaviour {
        path: a.path,
        default,
        use_state_for_unknown: a.use_state_for_unknown,
        unknown_on_update: a.unknown_on_update,
        requires_replace: match a.requires_replace {
            wb::ReplaceRule::Never => DeclaredReplace::Never,
            wb::ReplaceRule::Always => DeclaredReplace::Always,
            wb::ReplaceRule::WhenGuestSays(id) => DeclaredReplace::Hook(id),
        },
        validators: a.validators.into_iter().map(validator).collect(),
    })
}

fn validator(v: wb::Validator) -> DeclaredValidator {
    match v {
        wb::Validator::Length(r) => DeclaredValidator::Length(r.min, r.max),
        wb::Validator::Pattern(re) => DeclaredValidator::Pattern(re),
        wb::Validator::OneOf(allowed) => DeclaredValidator::OneOf(allowed),
        wb::Validator::Range(r) => {
            DeclaredValidator::Range(r.min.map(number_from_wit), r.max.map(number_from_wit))
        }
        wb::Validator::Size(r) => DeclaredValidator::Size(r.min, r.max),
        wb::Validator::ConflictsWith(n) => DeclaredValidator::ConflictsWith(n),
        wb::Validator::AlsoRequires(n) => DeclaredValidator::AlsoRequires(n),
        wb::Validator::ExactlyOneOf(n) => DeclaredValidator::ExactlyOneOf(n),
        wb::Validator::AtLeastOneOf(n) => DeclaredValidator::AtLeastOneOf(n),
        wb::Validator::Custom(c) => DeclaredValidator::Hook(c.id, c.description),
    }
}

#[cfg(test)]
mod tests {
    use terrarium_model::{Number, Value};

    use super::*;
    use crate::runtime::bindings::{value_to_wit, wit};

    fn attribute_named(path: &[&str]) -> wb::AttributeBehaviour {
        wb::AttributeBehaviour {
            path: path.iter().map(|s| s.to_string()).collect(),
            default: None,
            use_state_for_unknown: false,
            unknown_on_update: false,
            requires_replace: wb::ReplaceRule::Never,
            validators: Vec::new(),
        }
    }

    fn schema(attributes: Vec<wb::AttributeBehaviour>) -> wb::SchemaBehaviour {
        wb::SchemaBehaviour { attributes, replace_blocks: Vec::new(), plan_hook: false }
    }

    fn provider(resources: Vec<wb::NamedBehaviour>) -> wb::ProviderBehaviour {
        wb::ProviderBehaviour {
            provider: schema(Vec::new()),
            resources,
            data_sources: Vec::new(),
            ephemeral_resources: Vec::new(),
            list_resources: Vec::new(),
            actions: Vec::new(),
        }
    }

    #[test]
    fn declared_behaviour_arrives_in_neutral_form() {
        let mut port = attribute_named(&["rule", "port"]);
        port.default = Some(wb::DefaultValue::Value(value_to_wit(&Value::Number(80.into()))));
        port.requires_replace = wb::ReplaceRule::WhenGuestSays(4);
        port.validators = vec![
            wb::Validator::Range(wb::NumberRange {
                min: Some(wit::Number::Decimal("0.5".into())),
                max: None,
            }),
            wb::Validator::Custom(wb::CustomValidator { id: 2, description: "even".into() }),
        ];
        let converted = provider_behaviour_from_wit(provider(vec![wb::NamedBehaviour {
            name: "x_thing".into(),
            behaviour: schema(vec![port]),
        }]))
        .unwrap();
        let port = &converted.resources["x_thing"].attributes[0];
        assert_eq!(port.default, Some(DeclaredDefault::Value(Value::Number(80.into()))));
        assert_eq!(port.requires_replace, DeclaredReplace::Hook(4));
        assert_eq!(
            port.validators,
            vec![
                DeclaredValidator::Range(Number::parse("0.5"), None),
                DeclaredValidator::Hook(2, "even".into())
            ]
        );
    }

    #[test]
    fn a_type_declared_twice_is_refused() {
        let twice = || wb::NamedBehaviour { name: "x_thing".into(), behaviour: schema(Vec::new()) };
        let err = provider_behaviour_from_wit(provider(vec![twice(), twice()])).unwrap_err();
        assert_eq!(err.to_string(), "the behaviour of resource \"x_thing\" is declared twice");
    }
}
