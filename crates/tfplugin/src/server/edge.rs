//! Values at the tfplugin edge, as terraform-plugin-framework's `fromproto6` and `toproto6`:
//! what Terraform sends is decoded here with the schema type it belongs to (the core's
//! `*_type` lookups), and what the core answers is encoded here. The core sees only typed
//! values.
//!
//! A value that cannot be decoded answers the RPC with an error diagnostic naming the value
//! and the call, before the guest is asked anything.

use terrarium_codec as codec;
use terrarium_core::{Dispatcher, Subject};
use terrarium_model::{Diagnostic, Type, Value};
use terrarium_proto::tfplugin6 as pb;

/// Decodes the values of one request.
pub(super) struct Decode<'a> {
    pub p: &'a Dispatcher,
    pub subject: Subject<'a>,
}

impl Decode<'_> {
    /// A value Terraform sent (absent: null), with the type it belongs to.
    pub fn value(
        &self,
        what: &str,
        dv: Option<&pb::DynamicValue>,
        ty: &Type,
    ) -> Result<Value, Vec<Diagnostic>> {
        let Some(dv) = dv else { return Ok(Value::Null) };
        codec::decode_dynamic_value(&dv.msgpack, &dv.json, ty).map_err(|e| {
            vec![Diagnostic::error(
                "Invalid value from Terraform",
                format!("Terrarium could not decode the {what} of {}: {e}", self.subject),
            )]
        })
    }

    /// The module's `provider_meta` block, when Terraform sent one and the provider declares
    /// a schema for it.
    pub fn provider_meta(
        &self,
        dv: Option<&pb::DynamicValue>,
    ) -> Result<Option<Value>, Vec<Diagnostic>> {
        match (dv, self.p.schemas().provider_meta()) {
            (Some(dv), Some(ty)) => Ok(Some(self.value("provider_meta", Some(dv), ty)?)),
            _ => Ok(None),
        }
    }

    /// An identity Terraform sent beside a state, decoded with the type's identity schema.
    /// Types without one get none (Terraform sends none for them).
    pub fn identity(
        &self,
        what: &str,
        type_name: &str,
        identity: Option<&pb::ResourceIdentityData>,
    ) -> Result<Option<Value>, Vec<Diagnostic>> {
        let data = identity.and_then(|i| i.identity_data.as_ref());
        match (data, self.p.schemas().identity(type_name)) {
            (Some(data), Some(ty)) => Ok(Some(self.value(what, Some(data), ty)?)),
            _ => Ok(None),
        }
    }

    /// Stored JSON (a RawState's) decoded without a schema, as Terraform stores it; empty is
    /// null.
    pub fn raw_json(&self, what: &str, json: &[u8]) -> Result<Value, Vec<Diagnostic>> {
        if json.is_empty() {
            return Ok(Value::Null);
        }
        codec::decode_json_untyped(json).map_err(|e| {
            vec![Diagnostic::error(
                "Invalid stored state",
                format!("Terrarium could not read the stored {what} for {}: {e}", self.subject),
            )]
        })
    }
}

/// Encodes a value the core answered with (checked against `ty` there, so this does not
/// fail unless Terrarium has a bug, which then becomes an error diagnostic).
pub(super) fn encode(
    subject: Subject<'_>,
    what: &str,
    value: Option<Value>,
    ty: Option<&Type>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<pb::DynamicValue> {
    let value = value?;
    match codec::encode_msgpack(&value, ty.unwrap_or(&Type::Dynamic)) {
        Ok(msgpack) => Some(pb::DynamicValue { msgpack, json: Vec::new() }),
        Err(e) => {
            diagnostics.push(Diagnostic::error(
                "Terrarium could not encode a value",
                format!(
                    "The {what} of {subject} could not be encoded for Terraform: {e}. This is a bug in Terrarium."
                ),
            ));
            None
        }
    }
}

/// [`encode`] for an identity, in its `ResourceIdentityData` wrapper.
pub(super) fn encode_identity(
    subject: Subject<'_>,
    what: &str,
    p: &Dispatcher,
    type_name: &str,
    identity: Option<Value>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<pb::ResourceIdentityData> {
    let ty = p.schemas().identity(type_name);
    encode(subject, what, identity, ty, diagnostics)
        .map(|data| pb::ResourceIdentityData { identity_data: Some(data) })
}
